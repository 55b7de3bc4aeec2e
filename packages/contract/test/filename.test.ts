import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FILENAME_BYTES, normalizeFilename } from '../src/normalize/filename.js';

const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).length;

const EXAMPLES: ReadonlyArray<readonly [unknown, string]> = [
  // Spec §5.2.
  ['../../malicious.txt', 'malicious.txt'],
  ['..\\..\\..\\windows\\system32\\file', 'file'],
  ['normal_file.csv', 'normal_file.csv'],
  // Percent-encoded traversal, single and double, and overlong UTF-8.
  ['%2e%2e%2fetc%2fpasswd', 'passwd'],
  ['..%2f..%2fsecret.txt', 'secret.txt'],
  ['..%5c..%5cboot.ini', 'boot.ini'],
  ['%252e%252e%252fx.txt', 'x.txt'],
  ['..%c0%afetc.txt', '__etc.txt'],
  ['%c0%ae%c0%ae%c0%afx', '______x'],
  ['%41%42%43.txt', 'ABC.txt'],
  ['100%25.txt', '100%.txt'],
  ['%zz.txt', '%zz.txt'],
  ['%2\u200be%2\u200be%2\u200bfx.txt', 'x.txt'],
  // Absolute paths, drives, UNC and device prefixes.
  ['/etc/passwd', 'passwd'],
  ['C:\\Windows\\win.ini', 'win.ini'],
  ['C:', 'file'],
  ['C:\\', 'file'],
  ['c:file.txt', 'file.txt'],
  ['\\\\server\\share\\report.pdf', 'report.pdf'],
  ['\\\\?\\C:\\temp\\x.txt', 'x.txt'],
  ['\\\\?\\UNC\\server\\share\\y.txt', 'y.txt'],
  ['//server/share/x.txt', 'x.txt'],
  ['\\\\.\\COM1', '_COM1'],
  ['a\u2215b.txt', 'b.txt'],
  ['x\uff0fy\uff3cz.txt', 'z.txt'],
  ['....//x.txt', 'x.txt'],
  ['x/..', 'x'],
  ['a/b/', 'b'],
  ['dir/.. /...', 'dir'],
  // Controls, format characters, separators, surrogates.
  ['file\u0000.txt', 'file.txt'],
  ['a\u0001b\u001fc\u007fd\u0085e.txt', 'abcde.txt'],
  ['invoice\u202efdp.exe', 'invoicefdp.exe'],
  ['\u202e.pdf', 'file.pdf'],
  ['.\u200b./x.txt', 'x.txt'],
  ['zero\u200bwidth\u2060.txt', 'zerowidth.txt'],
  ['\ufeffbom\u061c\u200e.txt', 'bom.txt'],
  ['soft\u00adhyphen.txt', 'softhyphen.txt'],
  ['line\u2028break\u2029.txt', 'linebreak.txt'],
  ['lone\ud800surrogate\udfff.txt', 'lonesurrogate.txt'],
  ['\u2066iso\u2069late.txt', 'isolate.txt'],
  // NFC and Windows-invalid characters.
  ['e\u0301te\u0301.txt', '\u00e9t\u00e9.txt'],
  ['file.txt:stream', 'file.txt_stream'],
  ['a<b>c:d"e|f?g*h.txt', 'a_b_c_d_e_f_g_h.txt'],
  // Whitespace and dots.
  ['  spaced.txt  ', 'spaced.txt'],
  ['trailing.txt...', 'trailing.txt'],
  ['trailing. . .', 'trailing'],
  ['.bashrc', 'file.bashrc'],
  ['.pdf', 'file.pdf'],
  ['.config.json', 'config.json'],
  ['...x', 'file.x'],
  ['.-rf', 'file.-rf'],
  ['-rf.txt', '_-rf.txt'],
  ['--help', '_--help'],
  // Device names.
  ['con.txt', '_con.txt'],
  ['Aux', '_Aux'],
  ['LPT1.tar.gz', '_LPT1.tar.gz'],
  ['com\u00b9.txt', '_com\u00b9.txt'],
  ['CON .txt', '_CON .txt'],
  ['console.txt', 'console.txt'],
  // Nothing left.
  ['../..', 'file'],
  ['////', 'file'],
  ['', 'file'],
  ['   ', 'file'],
  ['.', 'file'],
  ['..', 'file'],
  ['%2e%2e', 'file'],
  [undefined, 'file'],
  [null, 'file'],
  [42, 'file'],
  [{ name: 'a.txt' }, 'file'],
  // Length: the stem is cut, the extension kept, code points intact.
  [`${'a'.repeat(300)}.csv`, `${'a'.repeat(251)}.csv`],
  [`${'\u00e9'.repeat(200)}.pdf`, `${'\u00e9'.repeat(125)}.pdf`],
  ['\u{1F600}'.repeat(100), '\u{1F600}'.repeat(63)],
  [`${'a'.repeat(300)}.${'x'.repeat(20)}`, 'a'.repeat(255)],
  [`${'a'.repeat(250)}${' '.repeat(10)}.csv`, `${'a'.repeat(250)}.csv`],
  [`CON${' '.repeat(300)}x`, '_CON'],
];

describe('normalizeFilename examples', () => {
  for (const [input, expected] of EXAMPLES) {
    const label = typeof input === 'string' ? JSON.stringify(input).slice(0, 60) : String(input);
    it(`${label} -> ${JSON.stringify(expected).slice(0, 60)}`, () => {
      expect(normalizeFilename(input)).toBe(expected);
    });
  }
});

// Property tests: fast-check draws inputs from the arbitraries below and shrinks a failure to a
// small counterexample; it prints the seed and path, so `fc.assert(..., { seed, path })` replays it.
const NUM_RUNS = 600;

const PREFIXES = [
  '',
  '../',
  '..\\',
  '%2e%2e%2f',
  '%2E%2E%5C',
  '%252e%252e%252f',
  '%252e%252e%255c',
  '..%2f',
  '..%5c',
  '..%c0%af',
  '..%c1%9c',
  '....//',
  '.\u200b./',
  '..\u2215',
  '..\uff0f',
  '/',
  '\\',
  'C:\\',
  'c:',
  '\\\\server\\share\\',
  '\\\\?\\C:\\',
  '//server/share/',
  '/etc/',
  '~/',
  '%2fetc%2f',
  '..;/',
];
const BASES = [
  'report',
  'normal_file',
  'con',
  'AUX',
  'com1',
  'LPT\u00b2',
  'nul',
  'PRN',
  '.bashrc',
  '.',
  '..',
  '-rf',
  '--help',
  'invoice\u202efdp',
  'e\u0301t\u0301e\u0301',
  '\u6570\u636e',
  '\u05ea\u05d9\u05e7\u05d9\u05d4',
  '\u0645\u0644\u0641',
  '\u{1F600}\u{1F4C4}',
  'a\u0000b',
  'x\u0007y\u001b',
  '\u200bzero\u200d',
  '\u2066iso\u2069',
  'file:stream',
  'a<b>c',
  'q?"*|',
  '   ',
  '',
  'c1\u0085',
  'name. . .',
  '\ud800lone',
  'lone\udfff',
  '\u061cbidi\u200f',
  'CONIN$',
  ' -dash',
  '\u00a0nbsp\u3000',
  '%',
  '%%41',
  'x%2',
  '\ufffd',
];
const EXTENSIONS = [
  '.txt',
  '.csv',
  '.pdf',
  '.tar.gz',
  '.exe',
  '',
  '.',
  '..',
  '.verylongextensionname123',
  '. ',
  '.p\u202edf',
  '.CSV ',
  '.\u4e2d\u6587',
  '.%2e',
  '%2f..',
];
const SUFFIXES = ['', '.', '...', '   ', ' .', '\u0000', ':$DATA', '\u200e', '/', '\\..', '\r\n'];
const NOISE = [
  '\u0000',
  '\u001f',
  '\u007f',
  '\u009b',
  '\u202e',
  '\u200b',
  '\ufeff',
  '/',
  '\\',
  '%',
  ':',
  '\ud83d',
];

const isLone = (char: string): boolean => /^[\ud800-\udfff]$/.test(char);

/** Percent-encodes the characters the mask selects (encodeURIComponent throws on a lone surrogate; those stay raw). */
function percentEncodeSome(text: string, mask: readonly boolean[]): string {
  return Array.from(text, (char, i) =>
    mask[i] === true && !isLone(char) ? encodeURIComponent(char) : char,
  ).join('');
}

/** Inserts each piece at its position, taken modulo the current length so any number is valid. */
function insertNoise(name: string, noise: ReadonlyArray<readonly [number, string]>): string {
  let out = name;
  for (const [position, piece] of noise) {
    const at = position % (out.length + 1);
    out = out.slice(0, at) + piece + out.slice(at);
  }
  return out;
}

// Prefixes, a base, an extension and a suffix; then no encoding, some characters percent-encoded,
// or the whole name encoded twice; then up to two noise characters anywhere.
const hostileName = fc
  .record({
    prefixes: fc.array(fc.constantFrom(...PREFIXES), { maxLength: 3 }),
    base: fc.constantFrom(...BASES),
    extension: fc.constantFrom(...EXTENSIONS),
    suffix: fc.constantFrom(...SUFFIXES),
    encoding: fc.oneof(
      fc.constant<'none' | 'double'>('none'),
      fc.array(fc.boolean(), { maxLength: 200, size: 'max' }),
      fc.constant<'none' | 'double'>('double'),
    ),
    noise: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NOISE)), { maxLength: 2 }),
  })
  .map(({ prefixes, base, extension, suffix, encoding, noise }) => {
    let name = prefixes.join('') + base + extension + suffix;
    if (Array.isArray(encoding)) name = percentEncodeSome(name, encoding);
    else if (encoding === 'double')
      name = encodeURIComponent(encodeURIComponent(name.replace(/[\ud800-\udfff]/g, 'x')));
    return insertNoise(name, noise);
  });

const LONG_UNITS = ['a', '\u00e9', '\u{1F600}', '\u4e2d', 'a b', 'e\u0301', '\u05d0'];

// 300 to 10 000 code units of one repeated unit: always over 255 UTF-8 bytes.
const longStem = fc
  .tuple(fc.constantFrom(...LONG_UNITS), fc.integer({ min: 300, max: 10_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)));

// Long names whose last segment ends in a short extension: the cut must keep it.
const longWithExtension = fc
  .tuple(fc.constantFrom('', '../', 'C:\\tmp\\', '%2e%2e%2f'), longStem, fc.constantFrom('.csv', '.pdf'))
  .map((parts) => parts.join(''));

const longName = fc
  .tuple(
    fc.constantFrom(...PREFIXES),
    longStem,
    fc.constantFrom('', '.txt', '.verylongextensionname123', '...', '   '),
  )
  .map((parts) => parts.join(''));

// Raw UTF-16 code units, lone surrogates included.
const rawCodeUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  maxLength: 40,
  // Lengths spread over 0..40, not fast-check's default of short strings.
  size: 'max',
});

const NON_STRINGS: unknown[] = [
  undefined,
  null,
  0,
  42,
  Number.NaN,
  true,
  {},
  [],
  ['a.txt'],
  () => 'x.txt',
  Symbol('x'),
  10n,
  new String('a.txt'),
  new Uint8Array([46, 46, 47]),
];

const anyInput: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileName, weight: 6 },
  { arbitrary: longWithExtension, weight: 1 },
  { arbitrary: longName, weight: 1 },
  { arbitrary: rawCodeUnits, weight: 2 },
  // Any code point but a lone surrogate (by hand: fast-check's 'binary' unit is slow to generate).
  {
    arbitrary: fc.string({
      unit: fc
        .integer({ min: 0, max: 0x10ffff })
        .filter((code) => code < 0xd800 || code > 0xdfff)
        .map((code) => String.fromCodePoint(code)),
      maxLength: 60,
    }),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(...NON_STRINGS), weight: 1 },
  { arbitrary: fc.anything(), weight: 1 },
);

// Every named example and every non-string is checked on each run, before the drawn inputs.
const FIXED_INPUTS: [unknown][] = [
  ...EXAMPLES.map(([input]): [unknown] => [input]),
  ...NON_STRINGS.map((input): [unknown] => [input]),
];

const RESERVED_STEM = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])$/i;

function expectAll(check: (output: string) => boolean): void {
  fc.assert(
    fc.property(anyInput, (input) => check(normalizeFilename(input))),
    { numRuns: NUM_RUNS, examples: FIXED_INPUTS },
  );
}

describe('normalizeFilename on generated hostile names (fast-check)', () => {
  it('is checked against at least 500 generated names plus every example', () => {
    expect(NUM_RUNS).toBeGreaterThanOrEqual(500);
    expect(FIXED_INPUTS.length).toBe(EXAMPLES.length + NON_STRINGS.length);
  });

  it('returns a non-empty string', () => {
    expectAll((output) => typeof output === 'string' && output.length > 0);
  });

  it('returns no separator, NUL, control or format character', () => {
    expectAll((output) => !/[/\\\0\p{Cc}\p{Cf}]/u.test(output));
  });

  it('never returns . or .. and never starts with . or -', () => {
    expectAll((output) => output !== '.' && output !== '..' && !/^[.-]/.test(output));
  });

  it('fits in 255 UTF-8 bytes and is well-formed', () => {
    expect(MAX_FILENAME_BYTES).toBe(255);
    expectAll(
      (output) => byteLength(output) <= 255 && new TextDecoder().decode(encoder.encode(output)) === output,
    );
  });

  it('is NFC', () => {
    expectAll((output) => output === output.normalize('NFC'));
  });

  it('has no Windows-invalid character', () => {
    expectAll((output) => !/[<>:"|?*]/.test(output));
  });

  it('has no leading or trailing whitespace and no trailing dot', () => {
    expectAll((output) => output === output.trim() && !output.endsWith('.'));
  });

  it('is not a reserved device name', () => {
    expectAll((output) => !RESERVED_STEM.test(output.split('.', 1)[0] ?? ''));
  });

  it('is idempotent', () => {
    expectAll((output) => normalizeFilename(output) === output);
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const first = normalizeFilename(input);
        return normalizeFilename(input) === first;
      }),
      { numRuns: NUM_RUNS, examples: FIXED_INPUTS },
    );
  });

  it('keeps a short extension when a long name is cut', () => {
    fc.assert(
      fc.property(longWithExtension, (input) => {
        const output = normalizeFilename(input);
        expect(byteLength(input)).toBeGreaterThan(255);
        expect(output.slice(-4)).toBe(input.slice(-4));
        expect(output.length).toBeGreaterThan(4);
      }),
      { numRuns: 100 },
    );
  });
});

describe('filename module', () => {
  it('imports nothing from node: so the web app can use it', () => {
    const source = readFileSync(new URL('../src/normalize/filename.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from\s+['"]node:/);
    // The header comment mentions Buffer; only code counts.
    const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bimport\s*\(|\brequire\s*\(|\bBuffer\b/);
    for (const [, specifier] of code.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g))
      expect(specifier).toMatch(/^\.\//);
  });
});
