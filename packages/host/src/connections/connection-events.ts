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
  /** Transport trouble that did not end the connection, e.g. a server printing logs to stdout. */
  | (EventBase & { type: 'error'; message: string });

export type ConnectionEventListener = (event: ConnectionEvent) => void;
