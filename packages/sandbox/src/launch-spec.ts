// The shapes the sandbox shares with @ferry/host, declared here because the host imports the
// sandbox and never the other way round (DESIGN "dependency direction"). They are the subset of
// the host's `StdioServerConfig`, `LaunchSpec` and `ServerLauncher` the sandbox uses, so a
// launcher made here is a host `ServerLauncher` by structure, without an import.

/** `required` refuses to start without the sandbox; `auto` warns and runs without; `off` never sandboxes. */
export type SandboxMode = 'required' | 'auto' | 'off';

export const SANDBOX_MODES: readonly SandboxMode[] = Object.freeze(['required', 'auto', 'off']);

/** What the launcher reads of a local server's config (the host's `StdioServerConfig`). */
export interface SandboxServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Values may use `{{user}}`. */
  readonly env: Readonly<Record<string, string>>;
  /** A path as the server sees it. @default the user's workspace inside the sandbox */
  readonly cwd?: string;
  readonly sandbox: SandboxMode;
  /** Outbound network through the sandbox's own user-mode stack (sandbox-network.ts); never the host's. */
  readonly network: boolean;
}

/** How to start one process: plain data, handed unchanged to the process transport. */
export interface LaunchSpec {
  command: string;
  args: string[];
  /** The process's whole environment. */
  env: Record<string, string>;
  cwd?: string;
}

export type SandboxLauncher = (server: SandboxServer, user: string) => Promise<LaunchSpec>;

const USER_PLACEHOLDER = '{{user}}';

/** `{{user}}` filled with a username the caller has already validated. */
export function fillUser(template: string, user: string): string {
  return template.replaceAll(USER_PLACEHOLDER, user);
}
