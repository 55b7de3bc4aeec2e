// The seam between the tool-call pipeline and MCP servers. The pipeline only sees these shapes;
// how a connection is made (stdio per user, Streamable HTTP, legacy SSE) is the pool's business.
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

/** One item of a `resources/read` result: text or base64 bytes. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * An MCP `elicitation/create` of the server during a call: sent as a request (2025-11-25) or
 * embedded in an `input_required` result (2026-07-28, multi round-trip requests). Form mode asks
 * for values (SEP-2356 `x-mcp-file` fields among them); URL mode (SEP-1036) asks the user to open a
 * link out of band, and its answer carries no content.
 */
export type ElicitationRequest =
  | { mode?: 'form'; message: string; requestedSchema: Record<string, unknown> }
  | {
      mode: 'url';
      message: string;
      url: string;
      /** 2025-11-25 only: the 2026-07-28 URL-mode shape has none (the server correlates itself). */
      elicitationId?: string;
    };

export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** What goes back to the server. */
export interface ElicitationResult {
  action: ElicitationAction;
  content?: Record<string, string | number | boolean | string[]>;
}

export interface CallOptions {
  /** Aborting sends notifications/cancelled and rejects the call with `signal.reason`. */
  signal: AbortSignal;
  /** Every notifications/progress of this call. */
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * The server's questions to the user while this call runs. MCP does not say which request an
   * elicitation belongs to on stdio, so a connection hands it to its oldest running call that
   * takes questions; without one the answer is `cancel`.
   */
  onElicitation?: (request: ElicitationRequest) => Promise<ElicitationResult>;
}

export interface ToolConnection {
  readonly server: string;
  /** From the cache; refreshed on notifications/tools/list_changed. */
  listTools(): Promise<Tool[]>;
  callTool(
    request: { name: string; arguments: Record<string, unknown> },
    options: CallOptions,
  ): Promise<CallToolResult>;
  /**
   * `resources/read` of the server: how a `resource_link` a tool returned becomes a file. The
   * contents arrive whole in one message (MCP has no streaming read), bounded by the transport's
   * message limit.
   */
  readResource(uri: string, options: { signal?: AbortSignal }): Promise<ResourceContents[]>;
  /**
   * For local servers: kills the process group (used at a timeout); the next `get` from the pool
   * starts a fresh process. A no-op for remote servers.
   */
  kill(reason: string): Promise<void>;
  readonly kind: 'local' | 'remote';
  /** `modern` (2026-07-28 and later) or `legacy` (2025-11-25 and earlier): what was negotiated. */
  readonly protocolEra: 'modern' | 'legacy' | undefined;
  /** A local server's pid, which is also its process group id; undefined for remote servers. */
  readonly pid?: number;
  /**
   * The server's `serverInfo` from initialize, once connected (what MCP Apps views are cached
   * by: servers/ui-resources.ts). Optional for test doubles.
   */
  readonly serverInfo?: { name: string; version: string } | undefined;
}

export interface ConnectionPool {
  /** The connection of `user` to `server`: one process per (server, user) for local servers. */
  get(server: string, user: string): Promise<ToolConnection>;
  /**
   * Closes every connection of `user` (their local server processes exit), waiting for starts in
   * progress; returns how many were closed. The next `get` for them starts afresh.
   */
  closeUser(user: string): Promise<number>;
  close(): Promise<void>;
  /** What the pool holds right now (read-only counts, e.g. for metrics). Optional for test doubles. */
  stats?(): PoolStats;
}

export interface PoolStats {
  /** Connections not fully closed yet (starting, open or closing), by kind. */
  connections: { local: number; remote: number };
  /** Local servers starting now, and those waiting for a start slot (`maxConcurrentStarts`). */
  starts: { running: number; waiting: number };
}
