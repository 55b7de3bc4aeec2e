import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  errorEnvelope,
  FerryError,
  fileNotFoundError,
  fileTooLargeError,
  fileTypeRejectedError,
  invalidPathError,
  isFerryErrorCode,
  sandboxUnavailableError,
  timeoutError,
} from '../src/wire/errors.js';

describe('error envelopes of v2.1 §12, byte for byte', () => {
  it('§12.1 timeout', () => {
    expect(timeoutError({ timeoutSeconds: 30, lastProgress: 'Processing chunk 45/200' })).toEqual({
      results: { error: 'Tool execution timed out after 30 seconds' },
      meta_data: {
        is_error: true,
        reason: 'ExecutionTimeout',
        error_code: 'E_TIMEOUT',
        details: {
          timeout_seconds: 30,
          last_progress: 'Processing chunk 45/200',
          suggestion: 'Consider breaking large operations into smaller chunks or using progress reporting',
        },
        retryable: true,
      },
    });
  });

  it('§12.1 timeout without progress keeps last_progress as null', () => {
    expect(timeoutError({ timeoutSeconds: 3 }).meta_data.details.last_progress).toBeNull();
    expect(timeoutError({ timeoutSeconds: 3 }).results.error).toBe(
      'Tool execution timed out after 3 seconds',
    );
  });

  it('§12.2 security violation', () => {
    expect(invalidPathError({ attemptedPath: '/etc/passwd', allowedPrefix: '/tmp/alice/' })).toEqual({
      results: { error: 'File operation outside allowed directory' },
      meta_data: {
        is_error: true,
        reason: 'SecurityViolation',
        error_code: 'E_INVALID_PATH',
        details: {
          attempted_path: '/etc/passwd',
          allowed_prefix: '/tmp/alice/',
          suggestion: 'Use /tmp/{username}/ prefix for file operations',
        },
        retryable: false,
      },
    });
  });

  it('§12.3 file size', () => {
    expect(fileTooLargeError({ fileSizeBytes: 107374182400, currentLimitBytes: 53687091200 })).toEqual({
      results: { error: 'Generated file exceeds processing limits' },
      meta_data: {
        is_error: true,
        reason: 'FileSizeExceeded',
        error_code: 'E_FILE_TOO_LARGE',
        details: {
          file_size_bytes: 107374182400,
          current_limit_bytes: 53687091200,
          suggestion: 'Consider generating summary or using chunked processing',
        },
        retryable: false,
      },
    });
  });

  it('Ferry codes carry the same fields', () => {
    for (const envelope of [
      fileNotFoundError({ name: 'a.csv' }),
      fileTypeRejectedError({ name: 'a.exe', mime: 'application/x-msdownload', accept: ['image/*', '.pdf'] }),
      sandboxUnavailableError({ server: 'report', cause: 'bwrap: No permissions to create new namespace' }),
    ]) {
      expect(Object.keys(envelope.meta_data).sort()).toEqual([
        'details',
        'error_code',
        'is_error',
        'reason',
        'retryable',
      ]);
      expect(envelope.meta_data.is_error).toBe(true);
      expect(typeof envelope.meta_data.details.suggestion).toBe('string');
      expect(envelope.results.error.length).toBeGreaterThan(0);
    }
    expect(fileNotFoundError({ name: 'a.csv' }).results.error).toBe('File not found: a.csv');
    expect(fileTypeRejectedError({ name: 'a.exe', mime: 'x/y', accept: ['.pdf'] }).meta_data.error_code).toBe(
      'E_FILE_TYPE_REJECTED',
    );
    expect(sandboxUnavailableError({ server: 's', cause: 'c' }).meta_data.details).toMatchObject({
      server: 's',
      cause: 'c',
    });
  });

  it('a suggestion given in details wins over the default', () => {
    expect(errorEnvelope('E_INTERNAL', { suggestion: 'x' }).meta_data.details.suggestion).toBe('x');
  });
});

describe('FerryError', () => {
  it('carries code, status and the envelope', () => {
    const error = new FerryError('E_FILE_TOO_LARGE', undefined, {
      file_size_bytes: 11,
      current_limit_bytes: 10,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(413);
    expect(error.message).toBe('Generated file exceeds processing limits');
    expect(error.toEnvelope().meta_data.details).toMatchObject({
      file_size_bytes: 11,
      current_limit_bytes: 10,
    });
  });

  it('fills {placeholders} in default messages', () => {
    expect(new FerryError('E_TIMEOUT', undefined, { timeout_seconds: 9 }).message).toBe(
      'Tool execution timed out after 9 seconds',
    );
  });

  it('recognizes its codes only', () => {
    expect(isFerryErrorCode('E_TIMEOUT')).toBe(true);
    expect(isFerryErrorCode('toString')).toBe(false);
    expect(isFerryErrorCode(1)).toBe(false);
  });
});

describe('error code table', () => {
  const docs = readFileSync(join(import.meta.dirname, '../../../docs/contract.md'), 'utf8');

  it.each(Object.entries(ERROR_CODES))(
    '%s is documented in docs/contract.md with its status and reason',
    (code, info) => {
      const row = docs
        .split('\n')
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .find((cells) => cells[1] === `\`${code}\``);
      expect(row, `no row for ${code} in docs/contract.md`).toBeDefined();
      expect(row?.[2]).toBe(String(info.status));
      expect(row?.[3]).toBe(`\`${info.reason}\``);
      expect(row?.[4]).toBe(info.retryable ? 'yes' : 'no');
    },
  );

  it('statuses are HTTP error statuses and reasons are unique', () => {
    const infos = Object.values(ERROR_CODES);
    for (const info of infos) expect(info.status).toBeGreaterThanOrEqual(400);
    expect(new Set(infos.map((info) => info.reason)).size).toBe(infos.length);
  });
});
