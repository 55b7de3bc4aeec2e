import type { FileDto } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { acceptsFile, groupFiles } from '../src/lib/file-sections';
import { describeExpiry, formatDuration, formatSpeed } from '../src/lib/format';
import { friendlyFromEnvelope } from '../src/lib/friendly-error';
import { addSample, bytesPerSecond } from '../src/lib/transfer-rate';

const file = (name: string, source: FileDto['source'], size: number, createdAt: string): FileDto => ({
  id: name,
  name,
  version: 1,
  size,
  mime: 'text/plain',
  sha256: '',
  source,
  category: null,
  description: null,
  temporary: false,
  expiresAt: null,
  createdAt,
  info: null,
});

describe('format', () => {
  it('formats sizes, speeds, durations and expiry', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5 GiB');
    expect(formatSpeed(2 * 1024 * 1024)).toBe('2 MiB/s');
    expect(formatDuration(75)).toBe('1 min 15 s');
    expect(formatDuration(72 * 3600)).toBe('3 days');
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(describeExpiry('2026-01-01T02:00:00Z', now)).toBe('expires in 2 h');
    expect(describeExpiry('2025-12-31T00:00:00Z', now)).toBe('expired');
    expect(describeExpiry(null, now)).toBeUndefined();
  });
});

describe('transfer rate', () => {
  it('measures over a sliding window', () => {
    let samples = addSample([], { at: 0, loaded: 0 });
    samples = addSample(samples, { at: 1000, loaded: 1000 });
    expect(bytesPerSecond(samples)).toBe(1000);
    samples = addSample(samples, { at: 5000, loaded: 9000 });
    samples = addSample(samples, { at: 6000, loaded: 10_000 });
    // Only the last window (plus one sample before it) counts: 9000 B in 5 s.
    expect(bytesPerSecond(samples)).toBe(1800);
  });
});

describe('groupFiles', () => {
  const files = [
    file('b.csv', 'uploaded', 30, '2026-01-02T00:00:00Z'),
    file('a.csv', 'uploaded', 10, '2026-01-03T00:00:00Z'),
    file('report.html', 'generated', 20, '2026-01-01T00:00:00Z'),
    file('notes.md', 'deferred', 5, '2026-01-01T00:00:00Z'),
  ];

  it('splits by source, filters by name and sorts', () => {
    const byName = groupFiles(files, '', 'name', 'asc');
    expect(byName.uploaded.map((f) => f.name)).toEqual(['a.csv', 'b.csv']);
    expect(byName.generated.map((f) => f.name)).toEqual(['report.html']);
    expect(byName.deferred.map((f) => f.name)).toEqual(['notes.md']);
    expect(groupFiles(files, '', 'size', 'desc').uploaded.map((f) => f.name)).toEqual(['b.csv', 'a.csv']);
    expect(groupFiles(files, '', 'created', 'desc').uploaded.map((f) => f.name)).toEqual(['a.csv', 'b.csv']);
    const searched = groupFiles(files, 'CSV', 'name', 'asc');
    expect([...searched.uploaded, ...searched.generated].map((f) => f.name)).toEqual(['a.csv', 'b.csv']);
  });

  it('filters pickers with the contract accept rules', () => {
    expect(acceptsFile({ name: 'x.png', mime: 'image/png' }, ['image/*'])).toBe(true);
    expect(acceptsFile({ name: 'x.csv', mime: 'text/csv' }, ['image/png', 'image/jpeg'])).toBe(false);
    expect(acceptsFile({ name: 'x.csv', mime: 'text/csv' }, ['.csv'])).toBe(true);
    expect(acceptsFile({ name: 'x', mime: 'a/b' }, undefined)).toBe(true);
  });
});

describe('friendlyFromEnvelope', () => {
  it('reads a v2.1 envelope with its suggestion', () => {
    expect(
      friendlyFromEnvelope({
        results: { error: 'Tool execution timed out after 30 seconds' },
        meta_data: {
          is_error: true,
          error_code: 'E_TIMEOUT',
          details: { suggestion: 'Try less data' },
          retryable: true,
        },
      }),
    ).toEqual({
      title: 'The tool took too long',
      message: 'Tool execution timed out after 30 seconds',
      suggestion: 'Try less data',
      code: 'E_TIMEOUT',
      retryable: true,
    });
    expect(friendlyFromEnvelope({ code: 'E_X', message: 'boom' })).toEqual({
      title: 'Error',
      message: 'boom',
      code: 'E_X',
    });
    expect(friendlyFromEnvelope({ summary: 'fine' })).toBeUndefined();
  });
});
