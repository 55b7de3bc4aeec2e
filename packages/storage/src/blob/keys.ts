// One key check shared by every driver. The FileStore only produces keys such as
// `users/<owner-id>/<file-id>`; anything else is a bug or an attack, so drivers refuse it before
// touching disk or network (fail closed). Local disk needs it against path traversal; S3 gets the
// same rule so a key that is unsafe on one backend is never accepted by another.

import type { ByteRange } from './driver.js';
import { createBlobError } from './errors.js';

/**
 * A segment is letters, digits, `.`, `_`, `-`, and never starts with a dot: that refuses `.`, `..`
 * and hidden names such as the local driver's own `.tmp/` directory.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** S3's own limit on key length (bytes; keys here are ASCII). */
const MAX_KEY_LENGTH = 1024;
/** Most filesystems' limit on one name. */
const MAX_SEGMENT_LENGTH = 255;

function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function segmentsAreValid(segments: string[]): boolean {
  return segments.every((segment) => segment.length <= MAX_SEGMENT_LENGTH && SEGMENT.test(segment));
}

/** Throws EINVAL unless `key` is `seg(/seg)*` with every segment valid (no `..`, no leading `/`). */
export function assertBlobKey(driver: string, key: unknown): asserts key is string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > MAX_KEY_LENGTH ||
    !segmentsAreValid(key.split('/'))
  ) {
    throw createBlobError(
      driver,
      'EINVAL',
      `invalid blob key ${show(key)}: expected segments of [A-Za-z0-9._-] not starting with "." separated by single "/"`,
    );
  }
}

/**
 * A list prefix is a string prefix of keys, as in S3: `''`, `users/`, `users/ab` (a partial last
 * segment) are valid; whatever a valid key could not start with is not.
 */
export function assertBlobPrefix(driver: string, prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || prefix.length > MAX_KEY_LENGTH) {
    throw createBlobError(driver, 'EINVAL', `invalid list prefix ${show(prefix)}`);
  }
  if (prefix === '') return;
  const segments = prefix.split('/');
  const last = segments.pop() as string;
  if (!segmentsAreValid(segments) || (last !== '' && !segmentsAreValid([last]))) {
    throw createBlobError(driver, 'EINVAL', `invalid list prefix ${show(prefix)}`);
  }
}

/**
 * Checks what can be checked without the blob's size: integers, `start >= 0`, `end >= start`.
 * Drivers then check `start < size` (for a non-empty blob) against the real size.
 */
export function assertByteRange(driver: string, range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0) {
    throw createBlobError(driver, 'ERANGE', `invalid range: start ${show(start)} must be an integer >= 0`);
  }
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) {
    throw createBlobError(
      driver,
      'ERANGE',
      `invalid range: end ${show(end)} must be an integer >= start (${start})`,
    );
  }
}

/** The size-dependent half of range validation, shared so both drivers word it the same. */
export function assertRangeWithinSize(driver: string, key: string, range: ByteRange, size: number): void {
  if (size > 0 && range.start >= size) {
    throw createBlobError(
      driver,
      'ERANGE',
      `range start ${range.start} is past the end of blob ${show(key)} (size ${size})`,
    );
  }
}
