import { describe, expect, it } from 'vitest';
import { effectiveFlags } from '../../src/config/flags.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { BYTES_PER_MB } from '../../src/config/schema.js';

const config = loadStorageConfig({ file: { user_quota_mb: 1024, max_file_size_mb: 100 }, env: {} });

describe('effectiveFlags', () => {
  it('without overrides is the config, with sizes also in bytes (1 MB = 2^20 bytes)', () => {
    expect(effectiveFlags(config)).toEqual({
      persist_files_across_sessions: true,
      base64_size_limit_mb: 300,
      max_file_size_mb: 100,
      user_quota_mb: 1024,
      deferred_expires_hours: 72,
      base64_size_limit_bytes: 300 * BYTES_PER_MB,
      max_file_size_bytes: 100 * BYTES_PER_MB,
      user_quota_bytes: 2 ** 30,
      deferred_expires_ms: 72 * 3_600_000,
    });
    expect(effectiveFlags(config, null)).toEqual(effectiveFlags(config, {}));
  });

  it('per-user overrides win; keys for other parts of Ferry are ignored', () => {
    const flags = effectiveFlags(config, {
      persist_files_across_sessions: false,
      base64_size_limit_mb: 0.5,
      max_file_size_mb: 20_000,
      deferred_expires_hours: 1,
      sandbox: 'required',
    });
    expect(flags).toMatchObject({
      persist_files_across_sessions: false,
      base64_size_limit_bytes: BYTES_PER_MB / 2,
      max_file_size_bytes: 20_000 * BYTES_PER_MB,
      user_quota_mb: 1024,
      deferred_expires_ms: 3_600_000,
    });
    expect(flags).not.toHaveProperty('sandbox');
  });

  it('quota: the users.quota_bytes column beats a flag override, which beats the config; null lifts it', () => {
    expect(effectiveFlags(config, { user_quota_mb: 1 }).user_quota_bytes).toBe(BYTES_PER_MB);
    expect(effectiveFlags(config, { user_quota_mb: null }).user_quota_bytes).toBeNull();
    expect(effectiveFlags(config, { user_quota_mb: 1 }, 5 * 2 ** 32).user_quota_bytes).toBe(5 * 2 ** 32);
    expect(effectiveFlags(config, {}, null).user_quota_bytes).toBe(2 ** 30);
    const unlimited = loadStorageConfig({ env: {} });
    expect(effectiveFlags(unlimited).user_quota_bytes).toBeNull();
  });

  it('an invalid stored override fails, naming the flag', () => {
    for (const bad of [
      { max_file_size_mb: -1 },
      { max_file_size_mb: '5' },
      { persist_files_across_sessions: 'no' },
    ]) {
      expect(() => effectiveFlags(config, bad)).toThrow(
        expect.objectContaining({
          code: 'E_INVALID_INPUT',
          message: expect.stringContaining(Object.keys(bad)[0] as string),
        }),
      );
    }
  });

  it('returns a frozen object and leaves the config untouched', () => {
    const flags = effectiveFlags(config, { max_file_size_mb: 1 });
    expect(Object.isFrozen(flags)).toBe(true);
    expect(config.max_file_size_mb).toBe(100);
  });
});
