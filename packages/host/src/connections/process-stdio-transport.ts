import { type ChildProcess, spawn } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { deserializeMessage, SdkError, SdkErrorCode, serializeMessage } from '@modelcontextprotocol/client';
import { LineBuffer, MAX_LINE_BYTES } from './json-lines.js';
import type { LaunchSpec } from './launcher.js';

// A stdio client transport over child_process, written because the SDK's StdioClientTransport
// cannot do what a per-user server pool needs:
// - it spawns the server in Ferry's own process group, so a timeout cannot kill what the server
//   started (a converter, a browser); this one spawns `detached` (its own group) and signals the
//   whole group;
// - its ReadBuffer caps a message at 10 MB and copies the buffer on every chunk; see json-lines.ts;
// - it resolves `close()` on the child's 'close' event only, which a grandchild holding stdout
//   open delays forever; here the leader's exit kills the rest of the group.

export interface ProcessStdioTransportOptions extends LaunchSpec {
  /** Largest message accepted from the server. @default MAX_LINE_BYTES (~512 MiB, V8's string limit) */
  maxMessageBytes?: number;
  /** Receives the server's stderr; without it, stderr goes to Ferry's own stderr. */
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
    this.#lines = new LineBuffer(options.maxMessageBytes ?? MAX_LINE_BYTES);
  }

  /** The server's pid, which is also its process group id; undefined before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

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
      stdio: ['pipe', 'pipe', onStderr === undefined ? 'inherit' : 'pipe'],
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
    let lines: Buffer[];
    try {
      lines = this.#lines.push(chunk);
    } catch (error) {
      // A message over the limit cannot be answered any more; a server that sends one is
      // stopped so its pending calls fail now rather than at the watchdog.
      this.onerror?.(error as Error);
      void this.kill();
      return;
    }
    for (const line of lines) {
      const text = line.toString('utf8').replace(/\r$/, '');
      if (text.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(text);
      } catch (error) {
        // Usually a server printing logs to stdout: reported, then skipped.
        const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
        this.onerror?.(new Error(`Not a JSON-RPC message on stdout: ${preview}`, { cause: error }));
        continue;
      }
      this.onmessage?.(message);
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
