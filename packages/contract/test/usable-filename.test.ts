// usableFilename is normalizeFilename for names about to be stored: the same name, or undefined
// where normalizeFilename would make up `file` for a name with nothing usable in it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeFilename, usableFilename } from '../src/normalize/filename.js';

describe('usableFilename', () => {
  it.each([
    // Seed 000 §5.2's example: a path whose last segment is `file` is the name `file`.
    ['..\\..\\..\\windows\\system32\\file', 'file'],
    ['a/file', 'file'],
    ['file', 'file'],
    ['../../malicious.txt', 'malicious.txt'],
    ['C:\\Users\\me\\notes.md\\', 'notes.md'],
    ['.bashrc', 'file.bashrc'],
    ['%2e%2e%2fsecret.txt', 'secret.txt'],
  ])('%j is stored as %j', (input, expected) => {
    expect(usableFilename(input)).toBe(expected);
    expect(normalizeFilename(input)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    '../..',
    '///',
    '...',
    '.. /. ./',
    '\\\\..\\',
    'C:',
    '\u0000\u202e\u200b',
    '%2e%2e%2f',
    '%252e%252e',
  ])('%j has nothing usable: undefined (normalizeFilename says file)', (input) => {
    expect(usableFilename(input)).toBeUndefined();
    expect(normalizeFilename(input)).toBe('file');
  });

  it('is undefined for anything that is not a string', () => {
    for (const input of [undefined, null, 42, {}, ['a.txt']]) expect(usableFilename(input)).toBeUndefined();
  });

  it('agrees with normalizeFilename on every name it accepts (fast-check)', () => {
    const pathish = fc.string({
      unit: fc.constantFrom('a', 'file', '.', '..', '/', '\\', ' ', 'C:', '%2e', '%2f', '\u202e', 'x.txt'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.oneof(pathish, fc.string({ unit: 'grapheme', maxLength: 40 })), (input) => {
        const usable = usableFilename(input);
        const normalized = normalizeFilename(input);
        return usable === undefined ? normalized === 'file' : usable === normalized;
      }),
      { numRuns: 1000 },
    );
  });
});
