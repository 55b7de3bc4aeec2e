// What the pool reports about its connections, for logs, metrics and the UI's server list. Plain
// data; the pool never waits on a listener.

/**
 * Why a connection ended. `exited`: the process or the remote side went away on its own;
 * `released`: the host let go of the user (their workspace was cleared, or they were deleted).
 */
export type CloseReason = 'idle' | 'killed' | 'exited' | 'pool-closed' | 'released' | 'failed';

interface EventBase {
  server: string;
  user: string;
  kind: 'local' | 'remote';
  /** The local server's pid (= its process group id). */
  pid?: number;
}

export type ConnectionEvent =
  | (EventBase & { type: 'connected' })
  | (EventBase & {
      type: 'closed';
      reason: CloseReason;
      /** The reason given to `kill()`, or what went wrong when starting. */
      detail?: string;
      exitCode?: number | null;
      signal?: string | null;
    })
  | (EventBase & { type: 'tools-changed' })
  /** notifications/resources/list_changed: cached MCP Apps views of the server are stale. */
  | (EventBase & { type: 'resources-changed' })
  /** Transport trouble that did not end the connection, e.g. a server printing logs to stdout. */
  | (EventBase & { type: 'error'; message: string });

export type ConnectionEventListener = (event: ConnectionEvent) => void;

// A local server's stderr is data, not part of Ferry's log: a tool must not be able to write lines
// that pass for Ferry's own records (a forged `{"level":50,…}`), move the cursor or colour a
// terminal, or drown the log. Each line becomes one record labelled with the server and the user,
// its control characters escaped and its length capped; a token bucket per (server, user) lets
// bursts of `burst` lines through, then `linesPerSecond`, and what it drops is counted and
// reported in one record per `summaryMs`.

/** One line a local server wrote on stderr, or how many of its lines were dropped. */
export type ServerStderrRecord =
  | {
      server: string;
      user: string;
      stream: 'stderr';
      /** Control characters and line separators written as escapes (`\x1b`, `\r`, `\u2028`). */
      line: string;
      /** The line's length when it was cut at `maxLineChars`. */
      truncated?: number;
    }
  | { server: string; user: string; stream: 'stderr'; dropped: number; message: string };

export type ServerStderrSink = (record: ServerStderrRecord) => void;

export interface StderrLogOptions {
  sink: ServerStderrSink;
  /** @default 50 */
  linesPerSecond?: number;
  /** @default 200 */
  burst?: number;
  /** @default 2048 */
  maxLineChars?: number;
  /** How long drops are counted before they are reported. @default 1000 */
  summaryMs?: number;
  now?: () => number;
}

/** The stderr of one connection: text as it arrives, then `end()` when the process is gone. */
export interface StderrLines {
  write(text: string): void;
  end(): void;
}

interface Bucket {
  tokens: number;
  at: number;
  dropped: number;
  timer: NodeJS.Timeout | undefined;
}

// C0 and C1 controls, DEL and the two Unicode line breaks (which JSON.stringify leaves raw).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\t': '\\t', '\r': '\\r', '\n': '\\n' };

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`);
  });
}

export function createStderrLog(options: StderrLogOptions): {
  open(server: string, user: string): StderrLines;
} {
  const rate = options.linesPerSecond ?? 50;
  const burst = options.burst ?? 200;
  const maxChars = options.maxLineChars ?? 2048;
  const summaryMs = options.summaryMs ?? 1000;
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();

  const report = (server: string, user: string, bucket: Bucket) => {
    clearTimeout(bucket.timer);
    bucket.timer = undefined;
    if (bucket.dropped === 0) return;
    const dropped = bucket.dropped;
    bucket.dropped = 0;
    const message = `${dropped} stderr lines of server ${server} (user ${user}) dropped`;
    options.sink({ server, user, stream: 'stderr', dropped, message });
  };

  const bucketOf = (key: string): Bucket => {
    const time = now();
    // A bucket left alone long enough to refill is the same as a new one: forget it.
    for (const [other, b] of buckets) {
      if (b.timer === undefined && b.dropped === 0 && (time - b.at) * rate >= burst * 1000)
        buckets.delete(other);
    }
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: time, dropped: 0, timer: undefined };
      buckets.set(key, bucket);
    }
    return bucket;
  };

  return {
    open(server, user) {
      const bucket = bucketOf(`${server}\n${user}`);
      let partial = '';
      /** Length of a line being skipped after its first `maxChars`; -1 when not skipping. */
      let skipping = -1;

      const emit = (raw: string, length: number) => {
        const time = now();
        bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.at) * rate) / 1000);
        bucket.at = time;
        if (bucket.tokens < 1) {
          bucket.dropped += 1;
          if (bucket.timer === undefined) {
            bucket.timer = setTimeout(() => report(server, user, bucket), summaryMs);
            bucket.timer.unref();
          }
          return;
        }
        bucket.tokens -= 1;
        const line = escapeControl(raw.replace(/\r$/, ''));
        options.sink({
          server,
          user,
          stream: 'stderr',
          line,
          ...(length > maxChars && { truncated: length }),
        });
      };
      const cut = (text: string) => {
        // Never split a surrogate pair.
        const end = /[\ud800-\udbff]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
        return text.slice(0, end);
      };

      return {
        write(text) {
          let start = 0;
          for (let newline = text.indexOf('\n'); ; newline = text.indexOf('\n', start)) {
            const piece = text.slice(start, newline === -1 ? text.length : newline);
            if (skipping >= 0) skipping += piece.length;
            else if (partial.length + piece.length > maxChars) {
              // Held no longer than its first maxChars: the rest is only counted.
              skipping = partial.length + piece.length;
              partial = cut(partial + piece.slice(0, maxChars));
            } else partial += piece;
            if (newline === -1) return;
            emit(partial, skipping >= 0 ? skipping : partial.length);
            partial = '';
            skipping = -1;
            start = newline + 1;
          }
        },
        end() {
          if (partial !== '' || skipping >= 0) emit(partial, skipping >= 0 ? skipping : partial.length);
          partial = '';
          skipping = -1;
          report(server, user, bucket);
        },
      };
    },
  };
}

/**
 * The default sink: one JSON record per line on Ferry's stderr, in the shape of Ferry's own
 * (pino) log records, so log tools can filter them by `server` and `stream`.
 */
export function writeStderrRecord(record: ServerStderrRecord): void {
  const level = 'dropped' in record ? 40 : 30;
  const msg = 'dropped' in record ? record.message : 'MCP server stderr';
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), msg, ...record })}\n`);
}
