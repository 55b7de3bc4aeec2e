// The scans both redactions for the model use (the host's and the agent's last pass). Their
// inputs are tool output: large and hostile, so they must stay linear and never recurse.
// Timing: no test measures time; inputs are sized so that a quadratic scan would run for minutes,
// and the generous timeout only catches that once the scan returns (it cannot be interrupted).
import { describe, expect, it } from 'vitest';
import { replaceBase64Runs, replaceDataUris } from '../src/index.js';

const MIB = 1024 * 1024;
const TIMEOUT = 20_000;
const mark = (uri: string) => `<${uri.length}>`;

describe('replaceDataUris', () => {
  it('hands each base64 data URI, payload included, to replace', () => {
    const seen: string[] = [];
    const out = replaceDataUris('a data:image/png;base64,iVBO= b "DATA:;BASE64,_-" c', (uri) => {
      seen.push(uri);
      return '[uri]';
    });
    expect(out).toBe('a [uri] b "[uri]" c');
    expect(seen).toEqual(['data:image/png;base64,iVBO=', 'DATA:;BASE64,_-']);
  });

  it('takes any media type up to the comma, parameters included', () => {
    expect(replaceDataUris('data:text/plain;name=a%20b.txt;base64,aGk= x', mark)).toBe('<42> x');
    expect(replaceDataUris('xdata:;base64,AAAA', mark)).toBe('x<17>');
  });

  it('leaves what is not a base64 data URI', () => {
    const plain = [
      'data:text/plain,hello',
      'data:image/png;base64',
      'data:image/png;base64 ,AAAA',
      'data:a b;base64,AAAA',
      'data:"x";base64,AAAA',
      'data:;base64x,AAAA',
    ].join(' ');
    expect(replaceDataUris(plain, mark)).toBe(plain);
  });

  it('finds a data URI after text that only starts like one', () => {
    expect(replaceDataUris('data:data:image/png;base64,AAAA', mark)).toBe('<31>');
    expect(replaceDataUris('data:x,y data:image/png;base64,AAAA', mark)).toBe('data:x,y <26>');
  });

  it('lets replace scan again (no state shared between calls)', () => {
    const inner = (uri: string) => replaceDataUris(`${uri} ${uri}`, () => 'in');
    expect(replaceDataUris('data:;base64,AA data:;base64,BB', inner)).toBe('in in in in');
  });

  it(
    "keeps 'data:' repeated 2 million times in linear time",
    () => {
      const text = 'data:'.repeat(2_000_000);
      expect(replaceDataUris(text, mark)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    'replaces a 10 MiB data URI and keeps one with 10 MiB of parameters and no base64',
    () => {
      const payload = 'QUJD'.repeat((10 * MIB) / 4);
      expect(replaceDataUris(`"data:a/b;base64,${payload}"`, mark)).toBe(`"<${10 * MIB + 16}>"`);
      const params = `data:a/b${';x'.repeat(5 * MIB)},y`;
      expect(replaceDataUris(params, mark)).toBe(params);
    },
    TIMEOUT,
  );
});

describe('replaceBase64Runs', () => {
  const encoded = 'Ab1+/'.repeat(40);

  it('replaces maximal runs of at least minLength that mix cases and digits, with up to two =', () => {
    const options = { minLength: 200, replace: mark };
    expect(replaceBase64Runs(`a ${encoded}=== b`, options)).toBe('a <202>= b');
    expect(replaceBase64Runs(`-${encoded.slice(1)}-`, options)).toBe(`-${encoded.slice(1)}-`);
    expect(replaceBase64Runs(`${encoded}x${encoded}`, options)).toBe('<401>');
    expect(replaceBase64Runs(`${encoded}-${encoded}`, options)).toBe('<200>-<200>');
  });

  it('keeps long runs of one kind: words, DNA, hex digests', () => {
    const options = { minLength: 10, replace: mark };
    for (const text of [
      'ACGT'.repeat(100),
      'abcdef0123'.repeat(50),
      'ABCDEF0123'.repeat(50),
      'aB'.repeat(300),
    ]) {
      expect(replaceBase64Runs(text, options)).toBe(text);
    }
  });

  it('counts minLength without the trailing =', () => {
    const run = 'aB3'.repeat(3);
    expect(replaceBase64Runs(`${run}==`, { minLength: 10, replace: mark })).toBe(`${run}==`);
    expect(replaceBase64Runs(`${run}==`, { minLength: 9, replace: mark })).toBe('<11>');
  });

  it(
    'replaces a 10 MiB run (a regular expression overflows its stack on it)',
    () => {
      const run = 'Ab1/'.repeat((10 * MIB) / 4);
      expect(replaceBase64Runs(`x ${run}== y`, { minLength: 512, replace: mark })).toBe(
        `x <${10 * MIB + 2}> y`,
      );
    },
    TIMEOUT,
  );
});
