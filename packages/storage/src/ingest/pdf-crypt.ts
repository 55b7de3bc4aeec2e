// Decryption for the standard security handler (ISO 32000-2 §7.6.4), with the empty user
// password only: that is how "protected" PDFs that anyone can open are written (restrictions on
// printing or copying, no password to view), and their object streams, where the page tree may
// sit, are encrypted. Dictionaries and numbers outside streams are never encrypted, so nothing
// else the page count reads needs this. Any other handler, or a file that needs a password,
// gives no decryptor and the page count falls back as for any unreadable stream.

import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { dictOf, intOf, type PdfValue } from './pdf-syntax.js';

/** Decrypts the data of stream `num gen`. */
export type StreamDecryptor = (num: number, gen: number, data: Uint8Array) => Uint8Array;

type Dict = Map<string, PdfValue>;
type Method = 'none' | 'rc4' | 'aes128' | 'aes256';

// Algorithm 2's padding string; the empty password padded to 32 bytes is exactly this.
const PASSWORD_PADDING = Buffer.from(
  '28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
  'hex',
);

const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };

/** The bytes of a PDF string value (literal with escapes, or hex), or undefined for anything else. */
export function stringBytes(value: PdfValue | undefined): Uint8Array | undefined {
  if (value === null || typeof value !== 'object' || !('bytes' in value)) return undefined;
  const text = value.bytes;
  if (value.hex) {
    const digits = text.replace(/[\0\t\n\f\r ]/g, '');
    if (!/^[0-9a-fA-F]*$/.test(digits)) return undefined;
    return Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex');
  }
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\r') {
      // An end of line inside a literal string reads as one \n.
      if (text[i + 1] === '\n') i++;
      out.push(10);
    } else if (ch !== '\\') {
      out.push(ch.charCodeAt(0) & 0xff);
    } else {
      const next = text[++i];
      if (next === undefined) break;
      const octal = /^[0-7]{1,3}/.exec(text.slice(i, i + 3));
      if (octal) {
        out.push(Number.parseInt(octal[0], 8) & 0xff);
        i += octal[0].length - 1;
      } else if (next === '\r') {
        // A backslash before an end of line continues the string on the next line.
        if (text[i + 1] === '\n') i++;
      } else if (next !== '\n') {
        out.push(ESCAPES[next] ?? next.charCodeAt(0));
      }
    }
  }
  return Uint8Array.from(out);
}

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  // Written out: OpenSSL 3 moved RC4 to its legacy provider, which Node may not load.
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] as number) + (key[i % key.length] as number)) & 0xff;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + (s[i] as number)) & 0xff;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
    out[n] = (data[n] as number) ^ (s[((s[i] as number) + (s[j] as number)) & 0xff] as number);
  }
  return out;
}

/** AES-CBC with the IV in the first 16 bytes and PKCS#5 padding, as PDF streams are encrypted. */
function aesDecrypt(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < 32 || data.length % 16 !== 0) throw new SyntaxError('bad AES stream length');
  const decipher = createDecipheriv(`aes-${key.length * 8}-cbc`, key, data.subarray(0, 16));
  return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
}

function md5(...parts: Uint8Array[]): Buffer {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** Algorithm 2 (revisions 2–4): the file key for the empty user password. */
function legacyFileKey(encrypt: Dict, revision: number, firstId: Uint8Array): Buffer | undefined {
  const owner = stringBytes(encrypt.get('O'));
  const permissions = encrypt.get('P');
  if (!owner || owner.length < 32 || typeof permissions !== 'number') return undefined;
  const bits = intOf(encrypt.get('Length')) ?? 40;
  const length = revision === 2 ? 5 : Math.min(16, Math.max(5, Math.floor(bits / 8)));
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions | 0);
  const parts = [PASSWORD_PADDING, owner.subarray(0, 32), p, firstId];
  if (revision >= 4 && encrypt.get('EncryptMetadata') === false)
    parts.push(Buffer.from([255, 255, 255, 255]));
  let hash = md5(...parts);
  if (revision >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, length));
  return hash.subarray(0, length);
}

/** Algorithm 2.B (revision 6): the hash that turns a password and salt into a key. */
function revision6Hash(input: Uint8Array): Buffer {
  let k = createHash('sha256').update(input).digest();
  let e: Buffer = Buffer.from([0]);
  // At least 64 rounds, then until the last byte of E is at most round − 32 (so at most 288).
  for (let round = 0; round < 64 || (e[e.length - 1] as number) > round - 32; round++) {
    // The password and the user key are empty here, so K1 is K repeated 64 times.
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => k));
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    e = Buffer.concat([cipher.update(k1), cipher.final()]);
    // The first 16 bytes as a number mod 3 equal their sum mod 3, since 256 ≡ 1 (mod 3).
    const remainder = e.subarray(0, 16).reduce((sum, byte) => sum + byte, 0) % 3;
    k = createHash(['sha256', 'sha384', 'sha512'][remainder] as string)
      .update(e)
      .digest();
  }
  return k.subarray(0, 32);
}

/** Revisions 5 and 6: the file key unwrapped from /UE with the empty user password. */
function aesV3FileKey(encrypt: Dict, revision: number): Buffer | undefined {
  const user = stringBytes(encrypt.get('U'));
  const userKey = stringBytes(encrypt.get('UE'));
  if (!user || user.length < 48 || !userKey || userKey.length !== 32) return undefined;
  const keySalt = user.subarray(40, 48);
  const key = revision === 5 ? createHash('sha256').update(keySalt).digest() : revision6Hash(keySalt);
  const decipher = createDecipheriv('aes-256-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([decipher.update(userKey), decipher.final()]);
}

function streamMethod(encrypt: Dict, version: number): Method | undefined {
  if (version < 4) return 'rc4';
  // Crypt filters (V4, V5): /StmF names the one for streams; Identity means not encrypted.
  const name = encrypt.get('StmF') ?? 'Identity';
  if (name === 'Identity') return 'none';
  const filter = typeof name === 'string' ? dictOf(dictOf(encrypt.get('CF'))?.get(name)) : undefined;
  const method = filter?.get('CFM');
  if (method === 'V2') return 'rc4';
  if (method === 'AESV2') return 'aes128';
  if (method === 'AESV3') return 'aes256';
  return method === 'None' ? 'none' : undefined;
}

/**
 * A decryptor for the streams of a file whose trailer has this /Encrypt dictionary, or undefined
 * when the file is not readable without a password or uses another handler.
 */
export function streamDecryptor(encrypt: Dict, firstId: Uint8Array | undefined): StreamDecryptor | undefined {
  if (encrypt.get('Filter') !== 'Standard') return undefined;
  const version = intOf(encrypt.get('V')) ?? 0;
  const revision = intOf(encrypt.get('R')) ?? 0;
  const method = streamMethod(encrypt, version);
  if (method === undefined || version < 1 || version > 5 || revision < 2 || revision > 6) return undefined;
  if (method === 'none') return (_num, _gen, data) => data;
  if (version === 5) {
    const key = method === 'aes256' ? aesV3FileKey(encrypt, revision) : undefined;
    return key && ((_num, _gen, data) => aesDecrypt(key, data));
  }
  if (!firstId || method === 'aes256') return undefined;
  const fileKey = legacyFileKey(encrypt, revision, firstId);
  if (!fileKey) return undefined;
  // Algorithm 1: each object has its own key, from the file key and the object's number.
  const objectKey = (num: number, gen: number): Buffer => {
    const id = Buffer.from([
      num & 0xff,
      (num >> 8) & 0xff,
      (num >> 16) & 0xff,
      gen & 0xff,
      (gen >> 8) & 0xff,
    ]);
    const salt = method === 'aes128' ? [Buffer.from('sAlT', 'latin1')] : [];
    return md5(fileKey, id, ...salt).subarray(0, Math.min(16, fileKey.length + 5));
  };
  return method === 'aes128'
    ? (num, gen, data) => aesDecrypt(objectKey(num, gen), data)
    : (num, gen, data) => rc4(objectKey(num, gen), data);
}
