import { FerryError, fillTemplate, fillTemplates, isValidUsername } from '@ferry/contract';
import {
  extrasEnv,
  inheritedEnv,
  type LaunchExtras,
  type LaunchSpec,
  LOCAL_SERVER_ENV_DEFAULTS,
} from '@ferry/sandbox';
import type { StdioServerConfig } from '../servers/server-config.js';

/**
 * Turns a server's config and a (validated) username into a launch. The default runs the config
 * as-is; the sandbox package supplies one that wraps the command in bubblewrap. May be async
 * (e.g. to create the user's workspace first). `extras` is what this connection adds (the user's
 * file provider: variables, a socket, placeholder values), for a server that has it.
 */
export type ServerLauncher = (
  server: StdioServerConfig,
  user: string,
  extras?: LaunchExtras,
) => LaunchSpec | Promise<LaunchSpec>;

/**
 * The default launcher: the configured command, placeholders filled in args and env values, the
 * allowlist plus the configured env (which wins) plus the extras' variables (sockets at their host
 * path), the configured cwd. No isolation at all: Ferry itself passes the sandbox's bubblewrap
 * launcher; this one serves embedders and tests without it.
 */
export function unsandboxedLauncher(
  server: StdioServerConfig,
  user: string,
  extras?: LaunchExtras,
): LaunchSpec {
  // Checked here too, not only where {{user}} occurs: a launcher is public and may be called alone.
  if (!isValidUsername(user)) throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
  const values = { ...extras?.placeholders, user };
  const spec: LaunchSpec = {
    command: server.command,
    args: server.args.map((arg) => fillTemplate(arg, values)),
    env: {
      ...LOCAL_SERVER_ENV_DEFAULTS,
      ...inheritedEnv(),
      ...fillTemplates(server.env, values),
      ...extrasEnv(extras, false),
    },
  };
  if (server.cwd !== undefined) spec.cwd = server.cwd;
  return spec;
}
