// How a local server's process starts, as plain data: the sandbox makes it (bubblewrap, or the
// unsandboxed fallback) and the host's process transport runs it unchanged. The host imports these
// shapes from here, never the other way round, so the sandbox reads a server's config through
// `SandboxServer`, the subset of the host's `StdioServerConfig` it uses: a launcher made here is
// a host `ServerLauncher` by structure.
import type { FileProviderPlaceholder, SandboxMode } from '@ferry/contract';

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

/**
 * How to start one process: the same fields as the MCP SDK's `StdioServerParameters`. `env` is
 * the process's *whole* environment: nothing else is inherited.
 */
export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * A unix socket of the host a server may connect to (the user's file provider): bound read-only
 * at `toolPath` inside the sandbox (connecting needs no write access to the mount), used at
 * `hostPath` by a server that runs unsandboxed.
 */
export interface LaunchSocket {
  /** Absolute host path of the listening socket. */
  hostPath: string;
  /** Absolute path inside the sandbox, outside /tmp (e.g. /run/ferry/file-provider.sock). */
  toolPath: string;
  /** A variable set to where this process finds the socket: `toolPath` sandboxed, else `hostPath`. */
  env?: string;
}

/**
 * What one connection adds to a server's launch, beyond its config: the host's file provider
 * (its variables, its socket, the values of its placeholders). Plain data, so the sandbox needs
 * nothing of the host.
 */
export interface LaunchExtras {
  /** Set after the configured env (they win). */
  env: Readonly<Record<string, string>>;
  sockets: readonly LaunchSocket[];
  /** Values of `{{fileProviderUrl}}` and `{{fileProviderToken}}` in args and env values. */
  placeholders?: { readonly [name in FileProviderPlaceholder]?: string };
}

export type SandboxLauncher = (
  server: SandboxServer,
  user: string,
  extras?: LaunchExtras,
) => Promise<LaunchSpec>;

/** The variables `extras` adds to a launch: its env, and each socket's variable at the path this process sees. */
export function extrasEnv(extras: LaunchExtras | undefined, sandboxed: boolean): Record<string, string> {
  if (extras === undefined) return {};
  const env: Record<string, string> = { ...extras.env };
  for (const socket of extras.sockets) {
    if (socket.env !== undefined) env[socket.env] = sandboxed ? socket.toolPath : socket.hostPath;
  }
  return env;
}

/**
 * Set in every local server's environment before anything else (its configured `env` can change
 * them). A local server runs once per user and sits idle most of its life; glibc's malloc keeps
 * the memory of freed large blocks (a 1 MiB file handed over as base64, the JSON line carrying it)
 * in the process because its mmap threshold rises to 32 MiB after the first large free. A fixed
 * threshold gives blocks of 32 KiB or more back to the system when freed: measured on the inject
 * example after ten 1 MiB calls and its idle collection, RSS 93 → 65 MiB with 64 KiB, and 59 → 57
 * MiB from 64 KiB to 32 KiB (same call CPU; 16 KiB gained nothing more). Other C libraries ignore
 * these names.
 */
export const LOCAL_SERVER_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_MMAP_THRESHOLD_: '32768',
});

/**
 * Variables a local server may inherit from Ferry's own environment: the MCP SDK's sudo-inspired
 * `DEFAULT_INHERITED_ENV_VARS` on POSIX (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus the locale
 * and time zone, so servers print dates and text like the host does. Secrets never match.
 */
export const INHERITED_ENV_VARS: readonly string[] = Object.freeze([
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'TZ',
]);

/** The part of `source` named in `names`, skipping exported shell functions as the SDK does. */
export function inheritedEnv(
  source: NodeJS.ProcessEnv = process.env,
  names: readonly string[] = INHERITED_ENV_VARS,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    // Exported shell functions look like `() { …`; never pass them on.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}
