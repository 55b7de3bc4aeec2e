// The config's JSON scanner must agree with JSON.parse on what is JSON (it only adds where), and
// the "did you mean" guess must pick typos, not other words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../src/config/config-hints.js';
import { findJsonSyntaxError, indexJsonSource } from '../../src/config/json-source.js';
import { REPO_ROOT } from '../support/start-app.js';

const accepts = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('findJsonSyntaxError', () => {
  it('agrees with JSON.parse on hand-picked texts', () => {
    const texts = [
      '{}',
      '[]',
      ' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]} ',
      '"just a string"',
      '0',
      '-0.0E-0',
      '{"a": 1,}',
      '[1, 2,]',
      '{"a": 01}',
      '{"a": .5}',
      '{"a": 1.}',
      '{"a": +1}',
      '{"a": "tab\there"}',
      '{"a": "\\x"}',
      '{"a": "\\u12"}',
      "{'a': 1}",
      '{"a" 1}',
      '{"a": 1 "b": 2}',
      '{"a": [1 2]}',
      '{"a": tru}',
      '{"a": NaN}',
      '{"a": 1} {}',
      '{"a": 1}}',
      '',
      '   ',
      '{',
      '{"a": "never closed}',
      '/* c */ {}',
      '{"a": 1} // c',
      '{"a":-}',
      '[[[[[]]]]]',
    ];
    for (const text of texts) {
      expect(findJsonSyntaxError(text) === undefined, JSON.stringify(text)).toBe(accepts(text));
    }
  });

  it('agrees with JSON.parse on every one-character edit of the repository config (seeded)', () => {
    const original = readFileSync(join(REPO_ROOT, 'ferry.config.json'), 'utf8');
    const alphabet = ['{', '}', '[', ']', ',', ':', '"', ' ', 'a', '1', '\\', '\n', '/', "'"];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    let rejected = 0;
    for (let round = 0; round < 2000; round++) {
      const at = random(original.length);
      const kind = random(3);
      const char = alphabet[random(alphabet.length)] as string;
      const text =
        kind === 0
          ? original.slice(0, at) + original.slice(at + 1)
          : kind === 1
            ? original.slice(0, at) + char + original.slice(at)
            : original.slice(0, at) + char + original.slice(at + 1);
      const found = findJsonSyntaxError(text);
      expect(found === undefined, `round ${round}: ${JSON.stringify(text.slice(at - 20, at + 20))}`).toBe(
        accepts(text),
      );
      if (found) {
        rejected += 1;
        expect(found.line).toBeGreaterThanOrEqual(1);
        expect(found.line).toBeLessThanOrEqual(text.split('\n').length);
      }
    }
    // The edits do break the file most of the time: the comparison was not all "valid".
    expect(rejected).toBeGreaterThan(500);
  });
});

describe('indexJsonSource', () => {
  it('finds each key where it is written, the last of duplicates as JSON.parse keeps it', () => {
    const text = '{\n  "a": {\n    "b": [10, {"c": 1}]\n  },\n  "a": {"d": 2}\n}';
    const index = indexJsonSource(text);
    expect(index.locate(['a'])).toEqual({ line: 5, column: 3 });
    expect(index.locate(['a', 'd'])).toEqual({ line: 5, column: 9 });
    expect(index.locate(['a', 'b', 1, 'c'])).toBeUndefined();
    const first = indexJsonSource('{"x": [10, {"c": 1}]}');
    expect(first.locate(['x', 1])).toEqual({ line: 1, column: 12 });
    expect(first.locate(['x', '1', 'c'])).toEqual({ line: 1, column: 13 });
    expect(first.locate(['nope'])).toBeUndefined();
  });
});

describe('closestName', () => {
  it('guesses typos, never unrelated words', () => {
    const keys = ['servers', 'server', 'storage', 'flags', 'sandbox', 'auth'];
    expect(closestName('serverz', keys)).toBe('servers');
    expect(closestName('Flags', keys)).toBe('flags');
    expect(closestName('sotrage', keys)).toBe('storage');
    expect(closestName('llm', keys)).toBeUndefined();
    expect(closestName('models', keys)).toBeUndefined();
    expect(closestName('fileMod', ['fileMode', 'cwd'])).toBe('fileMode');
    expect(closestName('trustedProxy', ['trustedProxies', 'header'])).toBe('trustedProxies');
    expect(editDistance('fiel', 'file')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
