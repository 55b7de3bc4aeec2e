import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StorageConfig } from '../config/schema.js';
import type { SecretBoxKey } from './secret-box.js';

/** Where the key lives when no token key is configured: beside the catalog, readable by Ferry only. */
export const OAUTH_KEY_FILE = 'oauth-credentials.key';

/**
 * The keys that encrypt OAuth credentials: the configured token keys (FERRY_TOKEN_SECRET,
 * storage.tokens.keys), or else a random key kept in the data directory. Not the per-process key
 * download tokens fall back to: a restart would make every user connect their servers again.
 */
export function oauthKeysFor(config: StorageConfig): { keys: SecretBoxKey[]; activeKeyId: string } {
  const { keys, activeKeyId } = config.tokens;
  if (keys.length > 0 && activeKeyId) return { keys: [...keys], activeKeyId };
  const file = join(config.dataDir, OAUTH_KEY_FILE);
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(config.dataDir, { recursive: true });
    secret = randomBytes(32).toString('hex');
    // 'wx': two instances starting at once cannot each write a different key.
    try {
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      secret = readFileSync(file, 'utf8').trim();
    }
  }
  return { keys: [{ id: 'local', secret }], activeKeyId: 'local' };
}
