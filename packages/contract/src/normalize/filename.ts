// File-name normalization (spec §5.2, §9.1). Every name that comes from outside (upload, tool
// artifact, archive member) passes through `normalizeFilename` before it is stored, shown, handed to
// a tool or sent in a Content-Disposition header. A stored file is later downloaded to Windows or
// macOS and read by CLI tools on Linux, so the result must be one safe path component on all three,
// whatever the host we happen to run on. Pure TypeScript (no `node:`, no Buffer): the web app
// imports it too. Why each rule:
// - Percent escapes are decoded until stable, because names pass through URL layers and
//   `%2e%2e%2f` or `%252e%252e%255c` become a traversal in whatever decodes them next. Bytes are
//   decoded as UTF-8 with replacement, so an overlong `%c0%af` is never a slash (U+FFFD becomes `_`).
// - Invisible characters (controls, format characters such as bidi overrides and zero-width
//   joiners, line separators, lone surrogates) go before anything else reads the name: they spoof
//   what a user sees (`invoice\u202efdp.exe`) and could hide a `..` from the separator split.
// - Only the last segment with real content survives, split on `/`, `\` and their Unicode
//   look-alikes, since some reader treats each as a separator. Segments of only dots and spaces
//   count as traversal: Windows drops trailing dots and spaces, so `.. ` and `...` act as `..`.
//   A drive (`C:`) and the `\\?\` / `\\.\` device prefixes are dropped; UNC server and share
//   names are plain segments, so a doubled leading slash from a POSIX join keeps the real name.
// - Windows-invalid characters, trailing dots and spaces, and device names (CON, COM¹, …) are
//   fixed everywhere, because the file may end up on Windows. `"` also breaks the header.
// - A leading dot hides the file and a leading `-` reads as an option to CLI tools.
// - 255 UTF-8 bytes is the component limit of ext4 and APFS (NTFS counts 255 UTF-16 units, which
//   is never stricter). The extension survives the cut because MIME detection reads it.
// - The rules are applied until the name stops changing, so normalizing twice equals once; a cut
//   can expose a trailing space or a device name, which the next pass fixes.

/** Longest name, in UTF-8 bytes, that `normalizeFilename` returns. */
export const MAX_FILENAME_BYTES = 255;

const FALLBACK_STEM = 'file';
// Real URL layering nests two or three levels deep; more is an attack and is neutralized instead.
const MAX_DECODE_ROUNDS = 8;
const MAX_PASSES = 8;

const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const LEFTOVER_ESCAPE = /%(?=[0-9A-Fa-f]{2})/g;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const REPLACEMENT_CHARACTER = /\uFFFD/g;
// Division slash, fraction slash, fullwidth solidus and reverse solidus, big (reverse) solidus.
const SEPARATOR = /[\\/\u2215\u2044\uFF0F\uFF3C\u29F8\u29F9]/g;
const DEVICE_PREFIX = /^\/\/[?.]\/(?:UNC\/)?/i;
const DRIVE = /^(?:[A-Za-z]:)+/;
const NO_CONTENT = /^[\s.]*$/;
const WINDOWS_INVALID = /[<>:"|?*]/g;
const LEADING_SPACE = /^\s+/;
const LEADING_DOTS = /^[\s.]+/;
const TRAILING_DOTS = /[\s.]+$/;
// CONIN$ and CONOUT$ are reserved too; Windows also ignores spaces before the extension.
const RESERVED = /^(?:CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|(?:COM|LPT)[0-9\u00B9\u00B2\u00B3])\s*$/i;
const EXTENSION = /\.[\p{L}\p{N}]{1,16}$/u;

const UTF8 = new TextDecoder();

/**
 * Turns any outside name into one safe path component: never empty, `.` or `..`, at most
 * {@link MAX_FILENAME_BYTES} UTF-8 bytes, NFC, free of separators, control and format characters,
 * Windows-invalid characters and device names, not starting with `.` or `-`, extension kept.
 * Deterministic and idempotent. A name with nothing usable in it, and anything that is not a
 * string, becomes `file`.
 */
export function normalizeFilename(raw: unknown): string {
  return usableFilename(raw) ?? FALLBACK_STEM;
}

/**
 * {@link normalizeFilename} for a name that is about to be stored: the same result, except that
 * a name with no usable characters (empty, `../..`, `///`, `...`, only control characters) is
 * `undefined` rather than `file`, so the caller can refuse it instead of storing a made-up name.
 * `..\..\windows\system32\file` and `a/file` are usable: they are `file`.
 */
export function usableFilename(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let name = normalizeOnce(raw);
  for (let pass = 1; pass < MAX_PASSES && name !== ''; pass++) {
    const next = normalizeOnce(name);
    if (next === name) return name;
    name = next;
  }
  if (name === '') return undefined;
  // Not reached by any known input; a name that never settles would break idempotence.
  return FALLBACK_STEM;
}

function normalizeOnce(input: string): string {
  let name = lastSegment(decodeAndClean(input).normalize('NFC'));
  name = name.replace(WINDOWS_INVALID, '_').replace(LEADING_SPACE, '').replace(TRAILING_DOTS, '');
  if (name.startsWith('.')) {
    // `.bashrc` and `.pdf` are all extension: keep it visible as `file.bashrc`.
    const rest = name.replace(LEADING_DOTS, '');
    name = rest === '' || rest.includes('.') ? rest : `${FALLBACK_STEM}.${rest}`;
  }
  if (name.startsWith('-')) name = `_${name}`;
  if (RESERVED.test(name.split('.', 1)[0] ?? '')) name = `_${name}`;
  // '' when nothing usable is left; normalizeFilename then answers `file`.
  return truncate(name);
}

function decodeAndClean(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    // Removing an invisible character can join `%2` and `e` into a new escape, so both repeat.
    const next = removeInvisible(decodeEscapes(current));
    if (next === current) return current;
    current = next;
  }
  // Nested deeper than any real URL: disarm what is left so a second call has nothing to decode.
  return current.replace(LEFTOVER_ESCAPE, '_');
}

function decodeEscapes(text: string): string {
  return text.replace(ESCAPE_RUN, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(run.slice(3 * i + 1, 3 * i + 3), 16);
    return UTF8.decode(bytes);
  });
}

function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '').replace(REPLACEMENT_CHARACTER, '_');
}

function lastSegment(path: string): string {
  const segments = path.replace(SEPARATOR, '/').replace(DEVICE_PREFIX, '').split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = (segments[i] ?? '').trim().replace(DRIVE, '');
    if (!NO_CONTENT.test(segment)) return segment;
  }
  return '';
}

function truncate(name: string): string {
  if (utf8Length(name) <= MAX_FILENAME_BYTES) return name;
  const extension = EXTENSION.exec(name)?.[0] ?? '';
  const stem = name.slice(0, name.length - extension.length);
  const cut = cutToBytes(stem, MAX_FILENAME_BYTES - utf8Length(extension)).replace(TRAILING_DOTS, '');
  return (cut || FALLBACK_STEM) + extension;
}

/** Longest prefix of `text` that fits in `max` UTF-8 bytes, never splitting a code point. */
function cutToBytes(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += utf8Width(char);
    if (bytes > max) break;
    end += char.length;
  }
  return text.slice(0, end);
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) bytes += utf8Width(char);
  return bytes;
}

function utf8Width(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}
