// What the host, the sandbox and a tool (through server-kit) must agree on about a user's
// workspace and a local server's config. Each side lives in its own package, so the names are
// defined once here: a tool that looked for its inputs under another name, or a sandbox that
// forgot to drop the variable the host sets, would fail only at run time.

import { isValidUsername } from '../normalize/username.js';
import { FerryError } from '../wire/errors.js';

/**
 * The directory holding every user's workspace, set by the host for a server it runs
 * unsandboxed; without it a tool uses `/tmp`. The sandbox removes it: inside, the workspace is
 * really `/tmp/{username}`.
 */
export const WORKSPACE_ROOT_ENV = 'FERRY_WORKSPACE_ROOT';

/** The folder of a workspace where the host puts a call's input files: read-only to tools, never an output. */
export const INPUT_DIR_NAME = 'input_files';

/** `required` refuses to start without the sandbox; `auto` warns and runs without; `off` never sandboxes. */
export const SANDBOX_MODES = Object.freeze(['required', 'auto', 'off'] as const);
export type SandboxMode = (typeof SANDBOX_MODES)[number];

// `{{user}}` is the only placeholder a server's config may use (in args, env values and header
// values). It is filled only with a username that passed `isValidUsername`, so the value can
// never carry a newline into a header, a space or leading `-` into an argument, or `/` into a path.
const USER_PLACEHOLDER = '{{user}}';

/** True when every `{{…}}` in `value` is exactly `{{user}}`. */
export function hasOnlyUserPlaceholders(value: string): boolean {
  const rest = value.replaceAll(USER_PLACEHOLDER, '');
  return !rest.includes('{{') && !rest.includes('}}');
}

/** Replaces every `{{user}}` in `template`; throws E_INVALID_INPUT for an invalid username. */
export function fillUserTemplate(template: string, user: string): string {
  // Checked even where no placeholder occurs: a caller must not learn to skip validation.
  if (!isValidUsername(user)) {
    throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
  }
  return template.replaceAll(USER_PLACEHOLDER, user);
}

/** `fillUserTemplate` over every value of a record (env, headers). */
export function fillUserTemplates(
  values: Readonly<Record<string, string>>,
  user: string,
): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) filled[key] = fillUserTemplate(value, user);
  return filled;
}
