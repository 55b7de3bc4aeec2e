import { FerryError } from '@ferry/contract';
import type { CallToolResult, Client, PriorDiscovery, Tool, Transport } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type {
  CallOptions,
  ElicitationRequest,
  ElicitationResult,
  ProgressUpdate,
  ResourceContents,
  ToolConnection,
} from './connection.js';
import { type CloseReason, type ConnectionEvent, escapeControl } from './connection-events.js';
import { closedFailure, intakeFailure, stderrReason } from './launcher-failure.js';
import type { OpenedTransport, ServerProcess } from './open-transport.js';
import { CALL_TAG_META, type ElicitationTap, tapElicitations } from './raw-elicitation-schemas.js';
import { deliverResponsesAfterNotifications } from './response-order.js';
import { callToolFollowingTasks } from './task-call.js';

// One MCP client bound to one transport: a process for a local server, an HTTP session for a
// remote one. It caches tools/list, forwards progress, keeps its own idle clock and tells the
// pool when it stops being usable. A connection is never reopened: the pool makes a new one.

/**
 * The SDK times every request out (60 s by default). The pipeline's watchdog owns the timing of a
 * call (notices, progress, hard cap), so the SDK's clock is pushed out of the way: 2^31-1 ms is
 * the longest delay Node's setTimeout accepts (beyond it the timer fires after 1 ms).
 */
const SDK_CALL_TIMEOUT_MS = 2 ** 31 - 1;
/** Reading a resource a tool linked to is a plain request: the SDK's own clock bounds it. */
const READ_RESOURCE_TIMEOUT_MS = 60_000;

export interface PooledConnectionOptions {
  server: string;
  user: string;
  client: Client;
  /** The transport, and the process behind it for a local server. */
  opened: OpenedTransport;
  idleMs: number;
  now: () => number;
  /**
   * From this time (epoch ms) the pool hands out a new connection instead, and this one closes
   * once its running calls end: what it was given at start (a file-provider token) expires.
   */
  renewAt?: number;
  connectTimeoutMs: number;
  /** A remembered protocol verdict for this server (skips the `server/discover` probe). */
  prior?: PriorDiscovery;
  /** Recent stderr of the process, quoted when it fails to start. */
  stderrTail?: () => string;
  /** Called once, as soon as the connection stops being usable (before it has fully closed). */
  onRetired: () => void;
  onEvent: (event: ConnectionEvent) => void;
}

type State = 'connecting' | 'open' | 'closing' | 'closed';

export class PooledConnection implements ToolConnection {
  readonly server: string;
  readonly user: string;
  readonly kind: 'local' | 'remote';
  readonly #o: PooledConnectionOptions;
  readonly #transport: Transport;
  /** A local server's process; undefined for a remote server. */
  readonly #process: ServerProcess | undefined;
  #state: State = 'connecting';
  #reason: CloseReason | undefined;
  #detail: string | undefined;
  #tools: Promise<Tool[]> | undefined;
  #active = 0;
  /** Calls made so far: the next call's tag. */
  #calls = 0;
  /** Handed out no more; closes when its last running call ends. */
  #draining = false;
  /** The question handlers of the running calls by call tag, oldest first (a Map keeps order). */
  readonly #askers = new Map<string, NonNullable<CallOptions['onElicitation']>>();
  #questions: ElicitationTap | undefined;
  #lastUsed: number;
  #idleTimer: NodeJS.Timeout | undefined;
  #resolveClosed!: () => void;
  /** Resolves once the client and transport are closed (and a process has exited). */
  readonly closed = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  constructor(options: PooledConnectionOptions) {
    this.#o = options;
    this.server = options.server;
    this.user = options.user;
    const { opened } = options;
    this.kind = opened.kind;
    this.#transport = opened.transport;
    this.#process = opened.kind === 'local' ? opened.process : undefined;
    this.#lastUsed = options.now();
  }

  /** The local server's pid, which is also its process group id; undefined for remote servers. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  async open(): Promise<void> {
    const { client } = this.#o;
    const transport = this.#transport;
    client.onclose = () => this.#onClosed();
    client.onerror = (error) => this.#emit({ type: 'error', message: error.message });
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const raw = this.#questions?.take(ctx.mcpReq.id);
      const params = raw?.schema ? { ...request.params, requestedSchema: raw.schema } : request.params;
      return { ...(await this.#elicit(params, raw?.call)) };
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      this.#tools = undefined;
      this.#emit({ type: 'tools-changed' });
    });
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      this.#emit({ type: 'resources-changed' });
    });
    try {
      await client.connect(transport, {
        timeout: this.#o.connectTimeoutMs,
        ...(this.#o.prior && { prior: this.#o.prior }),
      });
    } catch (error) {
      // Shut down first: a server that died before the handshake (EPIPE on our first write) may
      // not have had its last stderr read yet; the process is gone, and its stderr drained, once
      // this resolves.
      await this.#shutdown('failed', errorMessage(error));
      // One line: the stderr line that says why (the whole stderr is logged line by line
      // already). Quoted into a message that reaches logs and the UI: the tool's bytes, escaped.
      const reason = stderrReason(this.#o.stderrTail?.());
      const message = `Could not connect to MCP server "${this.server}": ${errorMessage(error)}`;
      throw new FerryError(
        'E_TOOL_UNAVAILABLE',
        reason ? `${message}; stderr: ${escapeControl(reason)}` : message,
        {
          server: this.server,
        },
      );
    }
    if (this.#state !== 'connecting') {
      throw new FerryError('E_INTERNAL', `MCP server "${this.server}" closed right after connecting`, {
        server: this.server,
      });
    }
    deliverResponsesAfterNotifications(transport);
    this.#questions = tapElicitations(transport);
    this.#state = 'open';
    this.#emit({ type: 'connected' });
    this.#scheduleIdleCheck(this.#o.idleMs);
  }

  /** The server's name and version from initialize, once connected. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.#o.client.getServerVersion();
    return info ? { name: info.name, version: info.version } : undefined;
  }

  /** `modern` (2026-07-28 and later) or `legacy` (2025-11-25 and earlier), once connected. */
  get protocolEra(): 'modern' | 'legacy' | undefined {
    return this.#o.client.getProtocolEra();
  }

  /** Due for renewal: the pool should open a new connection and `drain` this one. */
  get dueForRenewal(): boolean {
    return this.#o.renewAt !== undefined && this.#o.now() >= this.#o.renewAt;
  }

  /**
   * Stops this connection being handed out (the pool opens a new one on the next `get`) and
   * closes it once the calls it is running have ended; they finish undisturbed.
   */
  drain(): void {
    if (this.#state !== 'open' || this.#draining) return;
    this.#draining = true;
    this.#o.onRetired();
    if (this.#active === 0) void this.close('released');
  }

  /** Marks the connection as used now (the pool calls it on every `get`). */
  touch(): void {
    this.#lastUsed = this.#o.now();
  }

  listTools(): Promise<Tool[]> {
    this.#assertOpen();
    this.touch();
    if (this.#tools === undefined) {
      // The SDK walks every page; a list_changed during the walk clears #tools, so the next
      // caller fetches again instead of reading a list that was stale on arrival.
      const tools = this.#o.client.listTools().then((result) => Object.freeze(result.tools) as Tool[]);
      this.#tools = tools;
      tools.catch(() => {
        if (this.#tools === tools) this.#tools = undefined;
      });
    }
    return this.#tools;
  }

  async callTool(
    request: { name: string; arguments: Record<string, unknown> },
    options: CallOptions,
  ): Promise<CallToolResult> {
    this.#assertOpen();
    const { onProgress, onElicitation, signal } = options;
    this.#active += 1;
    // Names this call on the wire (stripped before sending) so a 2026-07-28 question reaches it.
    // Never sent: unique within this connection is enough. A 2025-11-25 question names no call,
    // so there the request goes untagged (no tag to add and strip again on every call).
    const tag = `${++this.#calls}`;
    const tagging = this.protocolEra !== 'legacy';
    if (onElicitation) this.#askers.set(tag, onElicitation);
    this.touch();
    try {
      // A server may answer with a task (tasks extension): followed there until it ends.
      const sdkOptions = {
        signal,
        timeout: SDK_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        ...(onProgress && {
          onprogress: ({ progress, total, message }: ProgressUpdate) =>
            onProgress({
              progress,
              ...(total !== undefined && { total }),
              ...(message !== undefined && { message }),
            }),
        }),
      };
      const tagged = tagging ? { ...request, _meta: { [CALL_TAG_META]: tag } } : request;
      return await callToolFollowingTasks(this.#o.client, tagged, sdkOptions, options);
    } catch (error) {
      // The SDK rejects an aborted call with its own RequestTimeout error; hand back the caller's
      // reason instead, so the watchdog can tell its timeout from a user's cancel.
      if (signal.aborted) throw signal.reason ?? error;
      // An answer the transport refused (too large, too deep), or the connection gone under it.
      const closed = this.isOpen
        ? undefined
        : closedFailure(this.server, error, {
            stderr: this.#o.stderrTail?.(),
            stoppedBy: this.#reason === 'exited' ? undefined : (this.#detail ?? this.#reason),
            exit: this.#process?.exit,
          });
      throw intakeFailure(error) ?? closed ?? error;
    } finally {
      this.#active -= 1;
      this.#askers.delete(tag);
      this.touch();
      if (this.#draining && this.#active === 0) void this.close('released');
    }
  }

  /**
   * A question of the server: to the call it came with (2026-07-28: its tools/call tag), else to
   * the oldest running call that takes questions (2025-11-25 does not say which request an
   * elicitation belongs to on stdio). Without one, or of a kind Ferry cannot show, it is `cancel`.
   */
  async #elicit(
    params: {
      message: string;
      requestedSchema?: unknown;
      mode?: string;
      url?: unknown;
      elicitationId?: unknown;
    },
    call: string | undefined,
  ): Promise<ElicitationResult> {
    const asker = call !== undefined ? this.#askers.get(call) : this.#askers.values().next().value;
    if (asker === undefined) return { action: 'cancel' };
    if (params.mode === 'url') {
      if (typeof params.url !== 'string') return { action: 'cancel' };
      const { elicitationId } = params;
      return asker({
        mode: 'url',
        message: params.message,
        url: params.url,
        ...(typeof elicitationId === 'string' && { elicitationId }),
      });
    }
    if (params.mode !== undefined && params.mode !== 'form') return { action: 'cancel' };
    const schema = params.requestedSchema;
    const request: ElicitationRequest = {
      message: params.message,
      requestedSchema:
        typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {},
    };
    return asker(request);
  }

  async readResource(uri: string, options: { signal?: AbortSignal }): Promise<ResourceContents[]> {
    this.#assertOpen();
    this.touch();
    const result = await this.#o.client
      .readResource(
        { uri },
        { ...(options.signal && { signal: options.signal }), timeout: READ_RESOURCE_TIMEOUT_MS },
      )
      .catch((error: unknown) => {
        throw intakeFailure(error) ?? error;
      });
    return result.contents.filter(
      (item): item is ResourceContents =>
        typeof (item as { text?: unknown }).text === 'string' ||
        typeof (item as { blob?: unknown }).blob === 'string',
    );
  }

  async kill(reason: string): Promise<void> {
    await this.#shutdown('killed', reason);
  }

  /** Closes gracefully (a process gets stdin EOF, then SIGKILL after a grace period). */
  async close(reason: 'idle' | 'pool-closed' | 'released'): Promise<void> {
    await this.#shutdown(reason);
  }

  async #shutdown(reason: CloseReason, detail?: string): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return this.closed;
    this.#reason = reason;
    this.#detail = detail;
    this.#retire('closing');
    const { client } = this.#o;
    const transport = this.#transport;
    if (reason === 'killed' || reason === 'failed') await this.#process?.kill();
    // Ends the HTTP session on the server too; a no-op for other transports.
    if ('terminateSession' in transport && typeof transport.terminateSession === 'function') {
      await transport.terminateSession().catch(() => {});
    }
    await client.close().catch(() => {});
    // Client.close() is a no-op when the transport already went away; make sure it is closed.
    await transport.close().catch(() => {});
    this.#onClosed();
    return this.closed;
  }

  #onClosed(): void {
    if (this.#state === 'closed') return;
    // Nobody asked for this: the process exited or the remote side dropped the session.
    if (this.#reason === undefined) this.#reason = this.#state === 'connecting' ? 'failed' : 'exited';
    this.#retire('closed');
    const exit = this.#process?.exit;
    this.#emit({
      type: 'closed',
      reason: this.#reason,
      ...(this.#detail !== undefined && { detail: this.#detail }),
      ...(exit !== undefined && { exitCode: exit.code, signal: exit.signal }),
    });
    this.#resolveClosed();
  }

  #retire(next: 'closing' | 'closed'): void {
    const wasUsable = this.#state === 'open' || this.#state === 'connecting';
    this.#state = next;
    clearTimeout(this.#idleTimer);
    this.#tools = undefined;
    if (wasUsable) this.#o.onRetired();
  }

  #scheduleIdleCheck(delayMs: number): void {
    this.#idleTimer = setTimeout(() => this.#checkIdle(), delayMs);
    // An idle server must not keep Ferry (or a CLI run) alive.
    this.#idleTimer.unref();
  }

  #checkIdle(): void {
    if (this.#state !== 'open') return;
    const idleFor = this.#o.now() - this.#lastUsed;
    if (this.#active > 0) this.#scheduleIdleCheck(this.#o.idleMs);
    else if (idleFor >= this.#o.idleMs) void this.close('idle');
    else this.#scheduleIdleCheck(this.#o.idleMs - idleFor);
  }

  #assertOpen(): void {
    if (this.#state !== 'open') {
      throw new SdkError(
        SdkErrorCode.NotConnected,
        `The connection to "${this.server}" is closed; get a new one from the pool`,
      );
    }
  }

  #emit(event: DistributiveOmit<ConnectionEvent, 'server' | 'user' | 'kind' | 'pid'>): void {
    const pid = this.pid;
    this.#o.onEvent({
      ...event,
      server: this.server,
      user: this.user,
      kind: this.kind,
      ...(pid !== undefined && { pid }),
    } as ConnectionEvent);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
