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

// Placeholders a server's config may use (in args, env values and header values): `{{user}}`
// anywhere, the file provider's two only on a server with `fileProvider` (the host's config
// schema checks that). `{{user}}` is filled only with a username that passed `isValidUsername`, so
// it can never carry a newline into a header, a space or leading `-` into an argument, or `/` into
// a path; the provider's values are Ferry's own (its URL, a base64url token).
export const FILE_PROVIDER_PLACEHOLDERS = Object.freeze(['fileProviderUrl', 'fileProviderToken'] as const);
export type FileProviderPlaceholder = (typeof FILE_PROVIDER_PLACEHOLDERS)[number];
const SERVER_PLACEHOLDERS = Object.freeze(['user', ...FILE_PROVIDER_PLACEHOLDERS] as const);
type ServerPlaceholder = (typeof SERVER_PLACEHOLDERS)[number];

/** What fills a server's templates: the username, and the file provider's values on a server that has it. */
export type TemplateValues = { readonly user: string } & {
  readonly [name in FileProviderPlaceholder]?: string;
};

const PLACEHOLDER = /\{\{([A-Za-z]+)\}\}/g;
const isServerPlaceholder = (name: string): name is ServerPlaceholder =>
  (SERVER_PLACEHOLDERS as readonly string[]).includes(name);

/**
 * The placeholders `value` uses, each once, in order of first use; undefined when it holds a
 * `{{` or `}}` that is not one of them (`{{User}}`, `{{ user }}`, `{{user}`).
 */
export function placeholdersIn(value: string): ServerPlaceholder[] | undefined {
  const used = new Set<ServerPlaceholder>();
  let unknown = false;
  const rest = value.replace(PLACEHOLDER, (whole, name: string) => {
    if (!isServerPlaceholder(name)) {
      unknown = true;
      return whole;
    }
    used.add(name);
    return '';
  });
  if (unknown || rest.includes('{{') || rest.includes('}}')) return undefined;
  return [...used];
}

/** True when every `{{…}}` in `value` is exactly `{{user}}`. */
export function hasOnlyUserPlaceholders(value: string): boolean {
  return placeholdersIn(value)?.every((name) => name === 'user') ?? false;
}

/**
 * Replaces every placeholder of `template` in one pass (a value is never read as a template).
 * Throws E_INVALID_INPUT for an invalid username, and a plain Error for a placeholder it was given
 * no value for: the config schema lets only servers with `fileProvider` use those, and the host
 * always gives such a server its values.
 */
export function fillTemplate(template: string, values: TemplateValues): string {
  // Checked even where no placeholder occurs: a caller must not learn to skip validation.
  if (!isValidUsername(values.user)) {
    throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
  }
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!isServerPlaceholder(name)) return whole;
    const value = values[name];
    if (value === undefined) throw new Error(`[ferry/contract] no value for the placeholder {{${name}}}`);
    return value;
  });
}

/** `fillTemplate` over every value of a record (env, headers). */
export function fillTemplates(
  record: Readonly<Record<string, string>>,
  values: TemplateValues,
): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [key, template] of Object.entries(record)) filled[key] = fillTemplate(template, values);
  return filled;
}

/** Replaces every `{{user}}` in `template`; throws E_INVALID_INPUT for an invalid username. */
export function fillUserTemplate(template: string, user: string): string {
  return fillTemplate(template, { user });
}
