// Base64 helpers shared by the browser and Node (native codecs underneath, see NodeBuffer).
// Validation is strict about the alphabet and padding but tolerant of line breaks, because tools
// written in other languages often emit MIME-style (76-column) base64.

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < STANDARD.length; i++) DECODE[STANDARD.charCodeAt(i)] = i;
// URL-safe alphabet decodes to the same values.
DECODE['-'.charCodeAt(0)] = 62;
DECODE['_'.charCodeAt(0)] = 63;

const WHITESPACE = /[\t\n\r ]+/g;
const STANDARD_BODY = /^[A-Za-z0-9+/]*$/;
const URL_SAFE_BODY = /^[A-Za-z0-9_-]*$/;

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
  // The common case in one native regex test; the loop below runs only to name what is wrong.
  if (STANDARD_BODY.test(body) || URL_SAFE_BODY.test(body)) return lengthCheck(clean, body, padding);
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
  return lengthCheck(clean, body, padding);
}

function lengthCheck(clean: string, body: string, padding: string): Base64Check {
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

/**
 * Node's Buffer where there is one (the host and servers: native, 14-60x faster than a JS loop),
 * else the browser's atob/btoa. Looked up on globalThis so this module stays free of `node:`.
 */
interface BufferLike {
  from(text: string, encoding: 'base64'): Uint8Array;
  from(bytes: Uint8Array): { toString(encoding: 'base64'): string };
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Decodes base64 that passed {@link checkBase64}; throws on invalid input (programmer error). */
export function decodeBase64(text: string): Uint8Array {
  const check = checkBase64(text);
  if (!check.valid) throw new TypeError(`decodeBase64: ${check.reason}`);
  if (NodeBuffer) {
    // Buffer reads both alphabets; the view spans exactly the decoded bytes.
    const bytes = NodeBuffer.from(check.clean, 'base64');
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const binary = atob(check.clean.replace(/[-_]/g, (c) => (c === '-' ? '+' : '/')));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Encodes bytes as standard, padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes).toString('base64');
  let binary = '';
  // Chunks keep String.fromCharCode's argument list short.
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
