import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Encryption at rest for OAuth credentials: AES-256-GCM under a key derived (HKDF-SHA256) from one
// of the token keys (storage.tokens.keys / FERRY_TOKEN_SECRET), so rotation works as for download
// tokens: the active key seals, every listed key opens. The box is bound to its row by the
// additional data (user and server), so a ciphertext copied to another row does not open.
//
// Sealed = "o1.<key id>.<base64url IV, 12 bytes>.<base64url ciphertext + 16-byte tag>".

const FORMAT = 'o1';
/** Separates this use of a token key from every other (the download tokens' HMAC). */
const INFO = 'ferry.oauth-credentials.v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBoxKey {
  id: string;
  secret: string | Uint8Array;
}

export interface SecretBox {
  readonly activeKeyId: string;
  seal(plain: string, boundTo: string): string;
  /** Undefined when the box was sealed by a key no longer listed, tampered with, or moved. */
  open(sealed: string, boundTo: string): string | undefined;
}

export function createSecretBox(keys: readonly SecretBoxKey[], activeKeyId: string): SecretBox {
  const derived = new Map<string, Buffer>();
  for (const key of keys) {
    const secret = typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : Buffer.from(key.secret);
    if (secret.length < 32)
      throw new Error(`[oauth] key "${key.id}" is ${secret.length} bytes; at least 32 are required`);
    derived.set(key.id, Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32)));
  }
  const active = derived.get(activeKeyId);
  if (active === undefined) throw new Error(`[oauth] active key "${activeKeyId}" is not among the keys`);
  return {
    activeKeyId,
    seal(plain, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', active, iv);
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [FORMAT, activeKeyId, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, boundTo) {
      const [format, keyId, iv64, body64, extra] = sealed.split('.');
      if (format !== FORMAT || extra !== undefined || !keyId || !iv64 || !body64) return undefined;
      const key = derived.get(keyId);
      if (key === undefined) return undefined;
      const iv = Buffer.from(iv64, 'base64url');
      const body = Buffer.from(body64, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(boundTo, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
