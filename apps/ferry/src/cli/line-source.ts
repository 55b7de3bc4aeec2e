// Lines typed (or piped) in answer to prompts, over node:readline/promises. Lines are queued from
// the 'line' event rather than read with rl.question(): piped answers arrive all at once, before
// the second question is asked, and rl.question() would drop every line that came early.
import { createInterface, type Interface } from 'node:readline/promises';

export interface LineSource {
  /** True when the answers come from a terminal (prompts are editable, Ctrl-D ends one answer). */
  readonly terminal: boolean;
  /**
   * Writes `query` and resolves with the next line; `null` at the end of input (Ctrl-D, or a pipe
   * with no more lines) or when `signal` aborts.
   */
  ask(query: string, signal?: AbortSignal): Promise<string | null>;
  /** Prints a line that is not a prompt (a form's message, an error). */
  say(line: string): void;
  /**
   * Between questions: a terminal is given back (out of raw mode, so Ctrl-C is a signal again and
   * it echoes as usual while the tool works); a pipe keeps its lines for the next question.
   */
  idle(): void;
  close(): void;
}

export interface LineSourceOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** A terminal in raw mode turns Ctrl-C into a key, not a signal: this is called instead. */
  onInterrupt?: () => void;
}

export function createLineSource(options: LineSourceOptions): LineSource {
  const terminal = options.input.isTTY === true;
  const queued: string[] = [];
  let waiter: ((line: string | null) => void) | undefined;
  let rl: Interface | undefined;
  let ended = false;

  const open = (): Interface => {
    if (rl) return rl;
    const created = createInterface({ input: options.input, output: options.output, terminal });
    created.on('line', (line) => {
      if (waiter) {
        const resolve = waiter;
        waiter = undefined;
        resolve(line);
      } else queued.push(line);
    });
    created.on('close', () => {
      rl = undefined;
      // A terminal can be read again after Ctrl-D (the next question opens a new interface); a
      // pipe that ended has nothing more to give.
      if (!terminal) ended = true;
      const resolve = waiter;
      waiter = undefined;
      resolve?.(null);
    });
    if (options.onInterrupt) created.on('SIGINT', options.onInterrupt);
    rl = created;
    return created;
  };

  return {
    terminal,
    async ask(query, signal) {
      if (signal?.aborted) return null;
      const early = queued.shift();
      if (early !== undefined) {
        // Piped: show the answer after its prompt, so a log reads like the session it was.
        options.output.write(`${query}${early}\n`);
        return early;
      }
      if (ended) {
        options.output.write(`${query}\n`);
        return null;
      }
      const reader = open();
      return new Promise<string | null>((resolve) => {
        const onAbort = () => {
          waiter = undefined;
          // A half-typed answer to a closed question must not become the next question's answer.
          if (terminal) {
            rl?.close();
            rl = undefined;
          }
          // Leave the half-typed prompt line, so what follows starts on a line of its own.
          options.output.write('\n');
          resolve(null);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiter = (line) => {
          signal?.removeEventListener('abort', onAbort);
          // Piped lines are not echoed by readline; the end of input leaves the prompt open.
          if (line === null) options.output.write('\n');
          else if (!terminal) options.output.write(`${line}\n`);
          resolve(line);
        };
        reader.setPrompt(query);
        reader.prompt();
      });
    },
    say(line) {
      options.output.write(`${line}\n`);
    },
    idle() {
      if (!terminal) return;
      rl?.close();
      rl = undefined;
      queued.length = 0;
    },
    close() {
      rl?.close();
      rl = undefined;
    },
  };
}
