import { describe, expect, it } from 'vitest';
import { formatBytes, formatBytesExact } from '../src/codecs/format-bytes.js';

describe('formatBytes', () => {
  it('writes one size the same way everywhere (the CLI and the web app share it)', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(6256)).toBe('6.1 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(150 * 1024)).toBe('150 KiB');
    expect(formatBytes(1048577)).toBe('1 MiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5 GiB');
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });

  it('gives the exact byte count beside the rounded size', () => {
    expect(formatBytesExact(2_202_010)).toBe('2.1 MiB (2,202,010 bytes)');
    expect(formatBytesExact(512)).toBe('512 bytes');
  });
});
