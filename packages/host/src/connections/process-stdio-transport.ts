import { type ChildProcess, spawn } from 'node:child_process';
import {
  DEFAULT_MAX_RESULT_BYTES,
  type FerryError,
  formatLimitBytes,
  MAX_RESULT_DEPTH,
} from '@ferry/contract';
import type { LaunchSpec } from '@ferry/sandbox';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { deserializeMessage, SdkError, SdkErrorCode, serializeMessage } from '@modelcontextprotocol/client';
import {
  type JsonRpcId,
  jsonDeeperThan,
  LineBuffer,
  type LineHead,
  readLineHead,
  readLineTailId,
} from './json-lines.js';
import { intakeErrorResponse, resultTooDeepError, resultTooLargeError } from './launcher-failure.js';

// A stdio client transport over child_process, written because the SDK's StdioClientTransport
// cannot do what a per-user server pool needs:
// - it spawns the server in Ferry's own process group, so a timeout cannot kill what the server
//   started (a converter, a browser); this one spawns `detached` (its own group) and signals the
//   whole group;
// - its ReadBuffer copies the buffer on every chunk and, past `maxBufferSize` of unread output,
//   drops everything buffered and errors the stream (see json-lines.ts); here a message over the
//   limit is dropped as it arrives and only the request it answers fails (E_RESULT_TOO_LARGE),
//   and one nested too deep is dropped before it is parsed;
// - it resolves `close()` on the child's 'close' event only, which a grandchild holding stdout
//   open delays forever; here the leader's exit kills the rest of the group.

export interface ProcessStdioTransportOptions extends LaunchSpec {
  /**
   * Largest message accepted from the server; a longer one is dropped unread and the request it
   * answers fails with E_RESULT_TOO_LARGE. At most MAX_LINE_BYTES (~512 MiB, V8's string limit).
   * @default DEFAULT_MAX_RESULT_BYTES (64 MiB)
   */
  maxMessageBytes?: number;
  /**
   * Deepest nesting of a message; a deeper one is dropped unparsed (its request fails with
   * E_TOOL_ERROR). @default MAX_RESULT_DEPTH + 1 (the JSON-RPC envelope around the result)
   */
  maxDepth?: number;
  /**
   * Receives the server's stderr, as the server wrote it. Without it stderr is discarded: it is
   * the tool's text, never copied raw into Ferry's own stderr (the pool logs it as data).
   */
  onStderr?: (text: string) => void;
  /** How long `close()` waits for the server to exit after its stdin closes. @default 2000 */
  closeGraceMs?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Process groups alive in this Ferry process: killed when Ferry exits, so none is orphaned. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // A negative pid addresses the process group whose leader is `pid` (spawned detached).
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: ProcessStdioTransportOptions;
  readonly #lines: LineBuffer;
  readonly #maxMessageBytes: number;
  readonly #maxDepth: number;
  /** Requests the host sent and the server has not answered, by `idKey`. */
  readonly #pending = new Map<string, JsonRpcId>();
  /** The line over the limit being skipped: what its head said, and whether a request failed. */
  #tooLong: { head: LineHead; refused: boolean } | undefined;
  #child: ChildProcess | undefined;
  #exit: ProcessExit | undefined;
  #finished = false;
  #resolveExited!: () => void;
  #resolveClosed!: () => void;
  readonly #exited = new Promise<void>((resolve) => {
    this.#resolveExited = resolve;
  });
  readonly #closed = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  constructor(options: ProcessStdioTransportOptions) {
    this.#options = options;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_RESULT_BYTES;
    this.#maxDepth = options.maxDepth ?? MAX_RESULT_DEPTH + 1;
    this.#lines = new LineBuffer(this.#maxMessageBytes);
  }

  /** The server's pid, which is also its process group id; undefined before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The server's stderr is handed to `onStderr`, never exposed; this member exists because the
   * SDK tells a stdio transport by `stderr` and `pid` (the version probe then reads a silent
   * server as a 2025 one and falls back to `initialize`, instead of failing as an HTTP outage).
   */
  readonly stderr = null;

  /** How the server process ended; undefined while it runs. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('ProcessStdioTransport already started');
    installExitHook();
    const { command, args, env, cwd, onStderr } = this.#options;
    const child = spawn(command, args, {
      env,
      cwd,
      detached: true,
      shell: false,
      windowsHide: true,
      stdio: ['pipe', 'pipe', onStderr === undefined ? 'ignore' : 'pipe'],
    });
    this.#child = child;
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.on('error', (error) => {
        // Before 'spawn' this is a launch failure (ENOENT, EACCES): no 'exit' will follow.
        reject(error);
        if (child.pid === undefined) this.#finish();
        else this.onerror?.(error);
      });
      child.once('exit', (code, signal) => this.#onExit(code, signal));
      child.once('close', () => this.#finish());
      child.stdin?.on('error', (error) => {
        if (!this.#finished) this.onerror?.(error);
      });
      child.stdout?.on('data', (chunk: Buffer) => this.#onData(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => onStderr?.(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || this.#exit !== undefined || stdin.destroyed || !stdin.writable) {
      return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'The server process is not running'));
    }
    this.#track(message);
    // The callback fires once the bytes reached the pipe (or with an error if it broke), which
    // also applies backpressure for large arguments.
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closes stdin, waits up to `closeGraceMs` for the server to exit, then kills the group. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#finished) return;
    if (this.#exit === undefined) {
      child.stdin?.end();
      const grace = this.#options.closeGraceMs ?? 2000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#exited,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, grace);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      if (this.#exit === undefined && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    }
    await this.#closed;
  }

  /** SIGKILLs the whole process group and resolves once the server is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#finished) return;
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    await this.#closed;
  }

  #onData(chunk: Buffer): void {
    for (const event of this.#lines.push(chunk)) {
      if (event.kind === 'line') this.#onLine(event.line);
      else if (event.kind === 'too-long') this.#onTooLong(event.head);
      else this.#onTooLongEnd(event.bytes, event.tail);
    }
  }

  #onLine(line: Buffer): void {
    if (jsonDeeperThan(line, this.#maxDepth)) {
      const head = readLineHead(line.subarray(0, 4096));
      const id = head.method ? undefined : (head.id ?? readLineTailId(line.subarray(-1024)));
      if (id === undefined || !this.#refuse(id, resultTooDeepError(this.#maxDepth - 1))) {
        this.onerror?.(new Error(`Dropped a message nested deeper than ${this.#maxDepth} levels`));
      }
      return;
    }
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      // Usually a server printing logs to stdout: reported, then skipped.
      const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      this.onerror?.(new Error(`Not a JSON-RPC message on stdout: ${preview}`, { cause: error }));
      return;
    }
    if ('id' in message && !('method' in message) && message.id !== undefined) {
      this.#pending.delete(idKey(message.id));
    }
    this.onmessage?.(message);
  }

  /**
   * A line passed the limit. Which request it answers is known now when its id comes first, or
   * when only one request is waiting; otherwise at its end (the TypeScript SDK writes the id last).
   */
  #onTooLong(head: Buffer): void {
    const read = readLineHead(head);
    const answer = read.object && !read.method;
    const only = this.#pending.size === 1 ? [...this.#pending.values()][0] : undefined;
    const id = answer ? (read.id ?? only) : undefined;
    const refused = id !== undefined && this.#refuse(id, resultTooLargeError(this.#maxMessageBytes));
    this.#tooLong = { head: read, refused };
  }

  #onTooLongEnd(bytes: number, tail: Buffer): void {
    const state = this.#tooLong;
    this.#tooLong = undefined;
    if (state?.refused) return;
    const error = resultTooLargeError(this.#maxMessageBytes, bytes);
    const answer = state?.head.object === true && !state.head.method;
    const id = answer ? readLineTailId(tail) : undefined;
    if (answer && id === undefined) {
      // An answer, but to which request cannot be told: every request waiting fails with it.
      for (const pending of [...this.#pending.values()]) this.#refuse(pending, error);
      return;
    }
    if (id === undefined || !this.#refuse(id, error)) {
      const limit = formatLimitBytes(this.#maxMessageBytes);
      this.onerror?.(new Error(`Dropped a ${bytes}-byte message from the server, over the ${limit} limit`));
    }
  }

  /** Fails the waiting request `id` with `error` (as if the server had answered so). */
  #refuse(id: JsonRpcId, error: FerryError): boolean {
    if (!this.#pending.delete(idKey(id))) return false;
    this.onmessage?.(intakeErrorResponse(id, error));
    return true;
  }

  #track(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message && message.id !== undefined) this.#pending.set(idKey(message.id), message.id);
      // A cancelled request may never be answered.
      const cancelled = message.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
      if (typeof cancelled === 'string' || typeof cancelled === 'number')
        this.#pending.delete(idKey(cancelled));
    }
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    const pid = this.#child?.pid;
    if (pid !== undefined) {
      liveGroups.delete(pid);
      // Whatever the server left running (and which may hold stdout open) goes with it.
      signalGroup(pid, 'SIGKILL');
    }
    this.#resolveExited();
    // 'close' follows once stdout drains; if a process outside the group still holds the pipe,
    // stop waiting for it.
    setTimeout(() => this.#finish(), 1000).unref();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    const child = this.#child;
    child?.stdin?.destroy();
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.#lines.clear();
    this.#resolveExited();
    this.#resolveClosed();
    this.onclose?.();
  }
}

function idKey(id: JsonRpcId): string {
  return `${typeof id}:${id}`;
}
