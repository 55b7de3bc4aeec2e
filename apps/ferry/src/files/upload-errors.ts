// Refusals of an upload, said for the person uploading: the file's real size (or honestly "more
// than" what was counted), the limit, both in exact bytes and readable, and advice that fits an
// upload. FileStore's own errors speak of bytes it stopped counting at and carry the contract's
// advice for tool outputs ("generating summary or chunked processing"), which stays theirs.
import { FerryError, formatBytes, formatBytesExact } from '@ferry/contract';
import type { UploadSize } from './measured-body.js';

function sizeText(size: UploadSize): string {
  return size.exact ? formatBytesExact(size.bytes) : `more than ${formatBytesExact(size.moreThan)}`;
}

/** `file_size_bytes` only when it is the real size; otherwise the bound it is known to exceed. */
function sizeDetails(size: UploadSize): Record<string, number | null> {
  return size.exact
    ? { file_size_bytes: size.bytes }
    : { file_size_bytes: null, file_size_more_than_bytes: size.moreThan };
}

function fileLabel(name: string | undefined): string {
  if (name === undefined) return 'The file';
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

/** E_FILE_TOO_LARGE (413) for an upload over max_file_size_mb. */
export function uploadTooLarge(name: string | undefined, size: UploadSize, limitBytes: number): FerryError {
  return new FerryError(
    'E_FILE_TOO_LARGE',
    `${fileLabel(name)} is ${sizeText(size)}; the limit is ${formatBytesExact(limitBytes)} per file`,
    {
      ...(name === undefined ? {} : { name }),
      ...sizeDetails(size),
      current_limit_bytes: limitBytes,
      suggestion: `Split the file into parts of at most ${formatBytes(limitBytes)}, or ask the administrator to raise FERRY_MAX_FILE_SIZE_MB (max_file_size_mb)`,
    },
  );
}

/**
 * E_QUOTA_EXCEEDED (507) for an upload, from FileStore's refusal (whose details give the quota,
 * what is used and what other uploads in progress hold) and the upload's real size.
 */
export function uploadOverQuota(refusal: FerryError, name: string | undefined, size: UploadSize): FerryError {
  const number = (key: string) => {
    const value = refusal.details[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  };
  const quota = number('quota_bytes');
  const used = number('used_bytes');
  const reserved = number('reserved_bytes');
  const free = Math.max(0, quota - used - reserved);
  const held = reserved > 0 ? `, ${formatBytesExact(reserved)} held by other uploads in progress` : '';
  return new FerryError(
    'E_QUOTA_EXCEEDED',
    `${fileLabel(name)} (${sizeText(size)}) does not fit in your storage quota of ${formatBytesExact(quota)}: ` +
      `${formatBytesExact(used)} used${held}, ${formatBytesExact(free)} free`,
    {
      ...refusal.details,
      ...(name === undefined ? {} : { name }),
      ...sizeDetails(size),
      free_bytes: free,
      suggestion:
        'Delete files you no longer need from My Files, or ask the administrator to raise your quota (FERRY_USER_QUOTA_MB, user_quota_mb)',
    },
  );
}
