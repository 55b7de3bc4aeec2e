import { formatBytes } from '@ferry/contract';

// Progress on stderr, one line redrawn in place, only when stderr is a terminal (a script reading
// stdout or a log file gets no control characters). Redraws at most ten times a second.

export interface ProgressBar {
  update(done: number, total?: number, message?: string): void;
  /** Clears the line (and prints `final`, if given, on its own line). */
  stop(final?: string): void;
}

export function createProgressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const tty = stream.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update(done, total, message) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && (total === undefined || done < total)) return;
      last = now;
      const width = 24;
      const fraction = total && total > 0 ? Math.min(1, done / total) : undefined;
      const bar =
        fraction === undefined
          ? ''
          : `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '.')}] ${Math.floor(fraction * 100)}% `;
      const amount =
        message ?? (total === undefined ? formatBytes(done) : `${formatBytes(done)}/${formatBytes(total)}`);
      const line = `${label} ${bar}${amount}`;
      stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 100) - 1)}`);
      drawn = true;
    },
    stop(final) {
      if (tty && drawn) stream.write('\r\x1b[2K');
      if (final !== undefined) stream.write(`${final}\n`);
    },
  };
}
