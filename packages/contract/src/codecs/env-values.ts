// The one reading of an environment variable's text as a flag or a number, for every FERRY_*
// setting (storage, app, model): the same words mean the same thing whichever package reads them.

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
// Plain decimals only: Number('') is 0 and Number('0x10') is 16, neither is what a person meant.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/;

/** `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off` (any case, spaces trimmed); else undefined. */
export function parseEnvFlag(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** A plain decimal number (spaces trimmed); else undefined. */
export function parseEnvNumber(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  return DECIMAL.test(trimmed) ? Number(trimmed) : undefined;
}

/** What a flag or number variable expects, for error messages. */
export const ENV_EXPECTED = { flag: 'true or false (also 1/0, yes/no, on/off)', number: 'a number' } as const;
