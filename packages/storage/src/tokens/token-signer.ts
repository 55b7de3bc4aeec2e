import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

// Signed download tokens: `/api/files/<id>/content?token=…` lets a tool or a browser fetch one
// file of one owner for a few minutes without a session.
//
// Token = base64url(payload) "." base64url(HMAC-SHA256(key, DOMAIN + payload)), where payload is
// "f1\n<key id>\n<owner>\n<file id>\n<expiry, unix seconds>". The key id travels in the clear
// so any listed key can verify while only the active one signs (rotation). Both halves must be
// canonical base64url, so no two strings verify as the same token.

/** Tool URLs live five minutes (DESIGN.md, "Downloads"). */
export const DEFAULT_TOKEN_TTL_SECONDS = 300;
const DEFAULT_MAX_TTL_SECONDS = 24 * 60 * 60;
const FORMAT = 'f1';
/** Binds the MAC to this use, so a key shared with another HMAC use cannot forge tokens. */
const DOMAIN = 'ferry.download-token\n';
const MIN_SECRET_BYTES = 32;
const MAX_TOKEN_LENGTH = 2048;
const MAX_FIELD_LENGTH = 256;
const MAC_CHARS = 43; // 32 bytes in unpadded base64url
const TOKEN_SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const EXPIRY = /^[0-9]{1,12}$/;

export interface TokenKey {
  /** Short public name of the key, carried in every token it signs. */
  id: string;
  /** At least 32 bytes (a string counts its UTF-8 bytes). */
  secret: string | Uint8Array;
}

export interface TokenSignerOptions {
  /** Every key that may verify; keep a retired key listed until its tokens have expired. */
  keys: readonly TokenKey[];
  /** The key that signs new tokens. */
  activeKeyId: string;
  /** Lifetime when `sign` is not given one. @default 300 */
  defaultTtlSeconds?: number;
  /** Longest lifetime `sign` accepts. @default 86400 */
  maxTtlSeconds?: number;
  /** Clock in epoch milliseconds. @default Date.now */
  now?: () => number;
}

export interface SignTokenInput {
  owner: string;
  fileId: string;
  ttlSeconds?: number;
}

export type TokenFailureReason =
  | 'malformed'
  | 'bad_signature'
  | 'expired'
  | 'wrong_file'
  | 'wrong_owner'
  | 'unknown_key';

export type TokenVerification =
  | { ok: true; owner: string; fileId: string; expiresAt: Date }
  | { ok: false; reason: TokenFailureReason };

export interface TokenSigner {
  readonly activeKeyId: string;
  sign(input: SignTokenInput): string;
  /** `fileId` is the file being served; `owner`, when given, the user it must belong to. */
  verify(token: unknown, expected: { owner?: string; fileId: string }): TokenVerification;
}

export function createTokenSigner(options: TokenSignerOptions): TokenSigner {
  const keys = new Map<string, KeyObject>();
  for (const key of options.keys ?? []) {
    if (!KEY_ID.test(key.id))
      throw new Error(`[tokens] key id must match ${KEY_ID}, got ${JSON.stringify(key.id)}`);
    if (keys.has(key.id)) throw new Error(`[tokens] key id "${key.id}" is listed twice`);
    const secret = typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : Buffer.from(key.secret);
    if (secret.length < MIN_SECRET_BYTES) {
      throw new Error(
        `[tokens] key "${key.id}" is ${secret.length} bytes; at least ${MIN_SECRET_BYTES} are required`,
      );
    }
    keys.set(key.id, createSecretKey(secret));
  }
  const activeKeyId = options.activeKeyId;
  const activeKey = keys.get(activeKeyId);
  if (!activeKey) throw new Error(`[tokens] activeKeyId "${activeKeyId}" is not among the keys`);
  const maxTtl = options.maxTtlSeconds ?? DEFAULT_MAX_TTL_SECONDS;
  const defaultTtl = options.defaultTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  checkTtl('defaultTtlSeconds', defaultTtl, maxTtl);
  const now = options.now ?? Date.now;

  return {
    activeKeyId,

    sign({ owner, fileId, ttlSeconds = defaultTtl }) {
      checkField('owner', owner);
      checkField('fileId', fileId);
      checkTtl('ttlSeconds', ttlSeconds, maxTtl);
      const expiry = Math.floor(now() / 1000) + ttlSeconds;
      const payload = Buffer.from([FORMAT, activeKeyId, owner, fileId, String(expiry)].join('\n'), 'utf8');
      return `${payload.toString('base64url')}.${mac(activeKey, payload).toString('base64url')}`;
    },

    verify(token, expected) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return fail('malformed');
      const shape = TOKEN_SHAPE.exec(token);
      if (!shape) return fail('malformed');
      const payload = decodeCanonical(shape[1] as string);
      const given = decodeCanonical(shape[2] as string);
      if (!payload || !given || shape[2]?.length !== MAC_CHARS) return fail('malformed');
      const fields = parsePayload(payload);
      if (!fields) return fail('malformed');

      const key = keys.get(fields.keyId);
      if (!key) return fail('unknown_key');
      const wanted = mac(key, payload);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return fail('bad_signature');
      if (fields.expiry * 1000 <= now()) return fail('expired');
      if (fields.fileId !== expected.fileId) return fail('wrong_file');
      if (expected.owner !== undefined && fields.owner !== expected.owner) return fail('wrong_owner');
      return {
        ok: true,
        owner: fields.owner,
        fileId: fields.fileId,
        expiresAt: new Date(fields.expiry * 1000),
      };
    },
  };
}

function mac(key: KeyObject, payload: Buffer): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(payload).digest();
}

function fail(reason: TokenFailureReason): TokenVerification {
  return { ok: false, reason };
}

/** Buffer's decoder ignores stray trailing bits; re-encoding rejects every non-canonical form. */
function decodeCanonical(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length > 0 && bytes.toString('base64url') === text ? bytes : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parsePayload(
  payload: Buffer,
): { keyId: string; owner: string; fileId: string; expiry: number } | undefined {
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch {
    return undefined;
  }
  const parts = text.split('\n');
  if (parts.length !== 5) return undefined;
  const [format, keyId, owner, fileId, expiry] = parts as [string, string, string, string, string];
  if (format !== FORMAT || !KEY_ID.test(keyId) || owner === '' || fileId === '' || !EXPIRY.test(expiry)) {
    return undefined;
  }
  return { keyId, owner, fileId, expiry: Number(expiry) };
}

function checkField(name: string, value: string): void {
  // A newline would let one field spill into the next; control characters have no place in ids.
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.length > MAX_FIELD_LENGTH ||
    /[\u0000-\u001f]/.test(value)
  ) {
    throw new Error(`[tokens] ${name} must be 1..${MAX_FIELD_LENGTH} characters without control characters`);
  }
}

function checkTtl(name: string, ttl: number, max: number): void {
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > max) {
    throw new Error(`[tokens] ${name} must be an integer from 1 to ${max}, got ${ttl}`);
  }
}
