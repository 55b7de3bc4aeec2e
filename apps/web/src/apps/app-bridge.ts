// The host side of an MCP App (ext-apps spec, SEP-1865). The protocol is ext-apps' AppBridge
// (`@modelcontextprotocol/ext-apps/app-bridge`): JSON-RPC ids, errors and timeouts, validation of
// what the view sends, `ui/initialize` and its answer (host info, capabilities, host context),
// `ping`, `ui/request-display-mode`, the sandbox proxy's notifications and `ui/resource-teardown`.
// What each request does is the caller's (AppHostHandlers, app-view.tsx). Written here, because
// AppBridge does not do it:
// - SandboxProxyTransport: postMessage pinned to the proxy's exact origin both ways. ext-apps'
//   PostMessageTransport posts with targetOrigin "*" and checks only the source window.
// - Holding the tool input and result until the view's `ui/notifications/initialized` (the spec's
//   rule): AppBridge sends a notification whenever it is asked to.
// - Host context changes made before the view had initialized reach it afterwards.
// - A teardown that waits a bounded time for the view's answer, then closes either way.
import {
  AppBridge,
  type McpUiHostCapabilities,
  type McpUiHostContext,
  type McpUiResourceCsp,
} from '@modelcontextprotocol/ext-apps/app-bridge';

/** JSON-RPC error codes Ferry answers with (AppBridge sends any thrown error's `code`). */
export const RPC = {
  invalidParams: -32602,
  /** Implementation-defined (the spec's examples: "denied by user", "Invalid URL"). */
  denied: -32000,
} as const;

/** An error the view receives as a JSON-RPC error with this code and message. */
export class AppRpcError extends Error {
  override readonly name = 'AppRpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Transport = Parameters<AppBridge['connect']>[0];
type JsonRpcMessage = Parameters<Transport['send']>[0];
type CallToolParams = Parameters<NonNullable<AppBridge['oncalltool']>>[0];
export type CallToolResult = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
type MessageParams = Parameters<NonNullable<AppBridge['onmessage']>>[0];

/**
 * The proxy frame's window, spoken to only at its exact origin: a message is taken only when it
 * comes from that window and origin, and sent with that origin as targetOrigin (a frame navigated
 * elsewhere gets nothing).
 */
export class SandboxProxyTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  #listening = false;

  constructor(
    private readonly target: Window,
    private readonly origin: string,
    private readonly events: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  ) {}

  readonly #listener = (event: MessageEvent) => {
    if (event.source !== this.target || event.origin !== this.origin) return;
    const data: unknown = event.data;
    // Only JSON-RPC 2.0 objects go on; AppBridge checks their shape and answers malformed requests.
    if (typeof data !== 'object' || data === null || (data as { jsonrpc?: unknown }).jsonrpc !== '2.0')
      return;
    this.onmessage?.(data as JsonRpcMessage);
  };

  async start(): Promise<void> {
    if (this.#listening) return;
    this.#listening = true;
    this.events.addEventListener('message', this.#listener);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!this.#listening) throw new Error('the app is not connected');
    this.target.postMessage(message, this.origin);
  }

  async close(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    this.events.removeEventListener('message', this.#listener);
    this.onclose?.();
  }
}

export interface AppHostHandlers {
  /** The view's `tools/call`; `signal` aborts when the view cancels it or the view goes. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  /** `ui/open-link`: resolve once opened; throw an AppRpcError to refuse. */
  openLink(url: string): Promise<void>;
  /** `ui/message`, its text blocks joined; throw an AppRpcError to refuse. */
  message(text: string): Promise<void>;
  onSizeChanged?(size: { width?: number; height?: number }): void;
}

export interface AppHostOptions {
  hostInfo: { name: string; version: string };
  capabilities: McpUiHostCapabilities;
  hostContext: McpUiHostContext;
  /** What the sandbox proxy gets when it is ready: the view's document and its declared CSP. */
  resource: { html: string; csp?: McpUiResourceCsp };
  handlers: AppHostHandlers;
}

/** The text of a `ui/message`'s text blocks (other kinds of content are not shown). */
function messageText(params: MessageParams): string {
  return params.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** One view's host: an AppBridge with Ferry's handlers, and what AppBridge leaves to the host. */
export class AppHost {
  readonly bridge: AppBridge;
  readonly #ready: Promise<void>;
  #initialized = false;
  #closed = false;
  #context: McpUiHostContext;

  constructor(options: AppHostOptions) {
    const { handlers } = options;
    this.#context = options.hostContext;
    const bridge = new AppBridge(null, options.hostInfo, options.capabilities, {
      hostContext: options.hostContext,
    });
    this.bridge = bridge;
    this.#ready = new Promise((resolve) => {
      bridge.oninitialized = () => {
        this.#initialized = true;
        // Context changed while the view was starting: AppBridge sends only what differs.
        bridge.setHostContext(this.#context);
        resolve();
      };
    });
    bridge.onsandboxready = () => {
      void bridge.sendSandboxResourceReady(options.resource).catch(() => undefined);
    };
    bridge.oncalltool = (params: CallToolParams, extra) =>
      handlers.callTool(params.name, params.arguments ?? {}, extra.mcpReq.signal);
    bridge.onopenlink = async ({ url }) => {
      await handlers.openLink(url);
      return {};
    };
    bridge.onmessage = async (params) => {
      const text = messageText(params);
      if (!text) throw new AppRpcError(RPC.invalidParams, 'The message has no text');
      await handlers.message(text);
      return {};
    };
    bridge.onsizechange = (size) => handlers.onSizeChanged?.(size);
    // Accepted and not passed on: the model's context is the chat's, not the view's.
    bridge.onupdatemodelcontext = async () => ({});
    bridge.onloggingmessage = () => undefined;
  }

  get initialized(): boolean {
    return this.#initialized;
  }

  connect(transport: Transport): Promise<void> {
    return this.bridge.connect(transport);
  }

  /** `ui/notifications/tool-input`, once the view has initialized. */
  sendToolInput(args: Record<string, unknown>): void {
    this.#whenReady(() => this.bridge.sendToolInput({ arguments: args }));
  }

  /** `ui/notifications/tool-result`, once the view has initialized (after the input: in order). */
  sendToolResult(result: CallToolResult): void {
    this.#whenReady(() => this.bridge.sendToolResult(result));
  }

  sendToolCancelled(reason: string): void {
    this.#whenReady(() => this.bridge.sendToolCancelled({ reason }));
  }

  /** Changes the host context: sent (what differs) now or once the view has initialized. */
  updateHostContext(change: Partial<McpUiHostContext>): void {
    this.#context = { ...this.#context, ...change };
    if (this.#initialized && !this.#closed) this.bridge.setHostContext(this.#context);
  }

  /**
   * Asks the view to tear down (`ui/resource-teardown`, whose params are `{}` in the spec: a
   * reason would be dropped by the view's SDK), waiting at most `timeoutMs` for its answer, then
   * closes.
   */
  async teardown(timeoutMs = 1000): Promise<void> {
    if (this.#closed) return;
    if (this.#initialized)
      await this.bridge.teardownResource({}, { timeout: timeoutMs }).catch(() => undefined);
    await this.close();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.bridge.close().catch(() => undefined);
  }

  #whenReady(send: () => Promise<void>): void {
    void this.#ready.then(() => (this.#closed ? undefined : send())).catch(() => undefined);
  }
}
