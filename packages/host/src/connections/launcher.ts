import { FerryError, isValidUsername } from '@ferry/contract';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import type { StdioServerConfig } from '../servers/server-config.js';
import { fillUserTemplate, fillUserTemplates } from '../servers/user-template.js';

/**
 * How to start one local server process: plain data, the same fields as the SDK's
 * `StdioServerParameters`. `env` is the process's *whole* environment: nothing else is inherited.
 */
export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * Turns a server's config and a (validated) username into a launch. The default runs the config
 * as-is; the sandbox package supplies one that wraps the command in bubblewrap. May be async
 * (e.g. to create the user's workspace first).
 */
export type ServerLauncher = (server: StdioServerConfig, user: string) => LaunchSpec | Promise<LaunchSpec>;

/**
 * Variables a local server inherits from Ferry's own environment: the SDK's sudo-inspired
 * `DEFAULT_INHERITED_ENV_VARS` (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus the locale and time
 * zone, so servers print dates and text like the host does. Secrets never match.
 */
export const INHERITED_ENV_VARS: readonly string[] = Object.freeze([
  ...DEFAULT_INHERITED_ENV_VARS,
  'LANG',
  'LC_ALL',
  'TZ',
]);

/** The allowlisted part of `source`, skipping exported shell functions as the SDK does. */
export function inheritedEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV_VARS) {
    const value = source[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

/**
 * The default launcher: the configured command, `{{user}}` filled in args and env values, the
 * allowlist plus the configured env (which wins), the configured cwd. No isolation at all: the
 * sandbox issue replaces it for `sandbox: 'auto' | 'required'`.
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
