// The seam between the tool-call pipeline and MCP servers. The pipeline only sees these shapes;
// how a connection is made (stdio per user, Streamable HTTP, legacy SSE) is the pool's business.
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  /** Aborting sends notifications/cancelled and rejects the call with `signal.reason`. */
  signal: AbortSignal;
  /** Every notifications/progress of this call. */
  onProgress?: (update: ProgressUpdate) => void;
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
   * For local servers: kills the process group (used at a timeout); the next `get` from the pool
   * starts a fresh process. A no-op for remote servers.
   */
  kill(reason: string): Promise<void>;
  readonly kind: 'local' | 'remote';
  /** A local server's pid, which is also its process group id; undefined for remote servers. */
  readonly pid?: number;
}

export interface ConnectionPool {
  /** The connection of `user` to `server`: one process per (server, user) for local servers. */
  get(server: string, user: string): Promise<ToolConnection>;
  close(): Promise<void>;
}
