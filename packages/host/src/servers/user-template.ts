import { FerryError, isValidUsername } from '@ferry/contract';

// `{{user}}` is the only placeholder a server's config may use (in args, env values and header
// values). It is filled only with a username that already passed `isValidUsername`, so the value
// can never carry a newline into a header, a space or leading `-` into an argument, or `/` into
// a path.
export const USER_PLACEHOLDER = '{{user}}';

/** True when every `{{…}}` in `value` is exactly `{{user}}`. */
export function hasOnlyUserPlaceholders(value: string): boolean {
  const rest = value.replaceAll(USER_PLACEHOLDER, '');
  return !rest.includes('{{') && !rest.includes('}}');
}

/** Replaces every `{{user}}` in `template`; throws E_INVALID_INPUT for an invalid username. */
export function fillUserTemplate(template: string, user: string): string {
  if (!isValidUsername(user)) {
    throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
  }
  return template.includes(USER_PLACEHOLDER) ? template.replaceAll(USER_PLACEHOLDER, user) : template;
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
