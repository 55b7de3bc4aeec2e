// Base64 helpers that run in the browser and in Node without Buffer, so the web app can share
// them. Validation is strict about the alphabet and padding but tolerant of line breaks, because
// tools written in other languages often emit MIME-style (76-column) base64.

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < STANDARD.length; i++) DECODE[STANDARD.charCodeAt(i)] = i;
// URL-safe alphabet decodes to the same values.
DECODE['-'.charCodeAt(0)] = 62;
DECODE['_'.charCodeAt(0)] = 63;

const WHITESPACE = /[\t\n\r ]+/g;

export type Base64Check =
  | { valid: true; clean: string; byteLength: number }
  | { valid: false; reason: string };

/**
 * Checks that `text` is base64 (standard or URL-safe alphabet, padding optional, ASCII
 * whitespace ignored) and returns the cleaned text and the number of bytes it decodes to.
 */
export function checkBase64(text: string): Base64Check {
  const clean = text.replace(WHITESPACE, '');
  if (clean.length === 0) return { valid: true, clean, byteLength: 0 };
  const padIndex = clean.indexOf('=');
  const body = padIndex === -1 ? clean : clean.slice(0, padIndex);
  const padding = padIndex === -1 ? '' : clean.slice(padIndex);
  if (padding.length > 2 || /[^=]/.test(padding)) {
    return { valid: false, reason: `padding '=' may only appear at the end (found at offset ${padIndex})` };
  }
  let sawStandard = false;
  let sawUrlSafe = false;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (code >= 128 || DECODE[code] === -1) {
      return { valid: false, reason: `invalid base64 character ${JSON.stringify(body[i])} at offset ${i}` };
    }
    if (code === 43 || code === 47) sawStandard = true;
    if (code === 45 || code === 95) sawUrlSafe = true;
  }
  if (sawStandard && sawUrlSafe)
    return { valid: false, reason: 'mixes standard (+/) and URL-safe (-_) alphabets' };
  if (body.length % 4 === 1)
    return { valid: false, reason: `length ${body.length} is not a valid base64 length` };
  if (padding.length > 0 && (body.length + padding.length) % 4 !== 0) {
    return { valid: false, reason: 'padding does not complete a 4-character group' };
  }
  return { valid: true, clean, byteLength: decodedLength(body.length) };
}

function decodedLength(unpaddedChars: number): number {
  const rest = unpaddedChars % 4;
  return Math.floor(unpaddedChars / 4) * 3 + (rest === 0 ? 0 : rest - 1);
}

/** Number of base64 characters (with padding) that `byteLength` bytes encode to. */
export function base64EncodedLength(byteLength: number): number {
  return Math.ceil(byteLength / 3) * 4;
}

/** Decodes base64 that passed {@link checkBase64}; throws on invalid input (programmer error). */
export function decodeBase64(text: string): Uint8Array {
  const check = checkBase64(text);
  if (!check.valid) throw new TypeError(`decodeBase64: ${check.reason}`);
  const body = check.clean.replace(/=+$/, '');
  const out = new Uint8Array(check.byteLength);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < body.length; i++) {
    buffer = (buffer << 6) | (DECODE[body.charCodeAt(i)] as number);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

/** Encodes bytes as standard, padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      STANDARD.charAt(n >> 18) +
      STANDARD.charAt((n >> 12) & 63) +
      STANDARD.charAt((n >> 6) & 63) +
      STANDARD.charAt(n & 63);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += `${STANDARD[n >> 18]}${STANDARD[(n >> 12) & 63]}==`;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += `${STANDARD[n >> 18]}${STANDARD[(n >> 12) & 63]}${STANDARD[(n >> 6) & 63]}=`;
  }
  return out;
}
