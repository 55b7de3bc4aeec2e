import { FerryError, fillUserTemplate, fillUserTemplates, isValidUsername } from '@ferry/contract';
import { inheritedEnv, type LaunchSpec } from '@ferry/sandbox';
import type { StdioServerConfig } from '../servers/server-config.js';

/**
 * Turns a server's config and a (validated) username into a launch. The default runs the config
 * as-is; the sandbox package supplies one that wraps the command in bubblewrap. May be async
 * (e.g. to create the user's workspace first).
 */
export type ServerLauncher = (server: StdioServerConfig, user: string) => LaunchSpec | Promise<LaunchSpec>;

/**
 * The default launcher: the configured command, `{{user}}` filled in args and env values, the
 * allowlist plus the configured env (which wins), the configured cwd. No isolation at all: Ferry
 * itself passes the sandbox's bubblewrap launcher; this one serves embedders and tests without it.
 */
export function unsandboxedLauncher(server: StdioServerConfig, user: string): LaunchSpec {
  // Checked here too, not only where {{user}} occurs: a launcher is public and may be called alone.
  if (!isValidUsername(user)) throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
  const spec: LaunchSpec = {
    command: server.command,
    args: server.args.map((arg) => fillUserTemplate(arg, user)),
    env: { ...inheritedEnv(), ...fillUserTemplates(server.env, user) },
  };
  if (server.cwd !== undefined) spec.cwd = server.cwd;
  return spec;
}
