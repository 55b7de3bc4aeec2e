import { FerryError } from '@ferry/contract';
import { z } from 'zod';
import { deepFreeze } from './load-config.js';
import { BYTES_PER_MB, type StorageConfig, type StorageFlags, storageFlagsShape } from './schema.js';

/** The flags in force for one user, with the byte and millisecond values code compares against. */
export interface EffectiveFlags extends StorageFlags {
  base64_size_limit_bytes: number;
  max_file_size_bytes: number;
  user_quota_bytes: number | null;
  deferred_expires_ms: number;
}

// Other keys in a user's flags JSON belong to other parts of Ferry and are ignored here.
const overridesSchema = z.object(storageFlagsShape).partial();

/**
 * Per-user overrides (the users table `flags` JSON) over the config. `userQuotaBytes`, the users
 * table `quota_bytes` column, wins over a `user_quota_mb` in either place. A stored override that
 * is not valid fails loudly, naming the flag, rather than silently granting the config default.
 */
export function effectiveFlags(
  config: StorageConfig,
  userFlags?: Readonly<Record<string, unknown>> | null,
  userQuotaBytes?: number | null,
): Readonly<EffectiveFlags> {
  // Every tool call and upload reads a user's flags; almost all users share a handful of stored
  // overrides (most none), so the answer is kept per config and stored value: the row is still
  // read each time, so a changed override takes effect at once. Only a frozen config (as
  // loadStorageConfig returns) is known not to change under the kept answers.
  if (!Object.isFrozen(config)) return computeFlags(config, userFlags, userQuotaBytes);
  let known = memo.get(config);
  if (known === undefined) {
    known = new Map();
    memo.set(config, known);
  }
  const key = `${userQuotaBytes ?? null}|${userFlags == null ? '' : JSON.stringify(userFlags)}`;
  let flags = known.get(key);
  if (flags === undefined) {
    flags = computeFlags(config, userFlags, userQuotaBytes);
    // Distinct stored overrides are few; a bound keeps a catalog of odd ones from growing this.
    if (known.size >= MEMO_LIMIT) known.delete(known.keys().next().value as string);
    known.set(key, flags);
  }
  return flags;
}

const MEMO_LIMIT = 256;
const memo = new WeakMap<StorageConfig, Map<string, Readonly<EffectiveFlags>>>();

function computeFlags(
  config: StorageConfig,
  userFlags: Readonly<Record<string, unknown>> | null | undefined,
  userQuotaBytes: number | null | undefined,
): Readonly<EffectiveFlags> {
  const parsed = overridesSchema.safeParse(userFlags ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`,
    );
    throw new FerryError('E_INVALID_INPUT', `Invalid per-user flag override: ${problems.join('; ')}`, {
      field: 'flags',
      problems,
    });
  }
  const overrides = parsed.data;
  const flags: StorageFlags = {
    persist_files_across_sessions:
      overrides.persist_files_across_sessions ?? config.persist_files_across_sessions,
    base64_size_limit_mb: overrides.base64_size_limit_mb ?? config.base64_size_limit_mb,
    max_file_size_mb: overrides.max_file_size_mb ?? config.max_file_size_mb,
    user_quota_mb: overrides.user_quota_mb !== undefined ? overrides.user_quota_mb : config.user_quota_mb,
    deferred_expires_hours: overrides.deferred_expires_hours ?? config.deferred_expires_hours,
  };
  const quotaFromFlags = flags.user_quota_mb === null ? null : Math.floor(flags.user_quota_mb * BYTES_PER_MB);
  return deepFreeze({
    ...flags,
    base64_size_limit_bytes: Math.floor(flags.base64_size_limit_mb * BYTES_PER_MB),
    max_file_size_bytes: Math.floor(flags.max_file_size_mb * BYTES_PER_MB),
    user_quota_bytes: userQuotaBytes ?? quotaFromFlags,
    deferred_expires_ms: Math.round(flags.deferred_expires_hours * 3_600_000),
  });
}
