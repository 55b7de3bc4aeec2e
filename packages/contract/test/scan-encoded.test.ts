// The scans both redactions for the model use (the host's and the agent's last pass). Their
// inputs are tool output: large and hostile, so they must stay linear and never recurse.
// Timing: no test measures time; inputs are sized so that a quadratic scan would run for minutes,
// and the generous timeout only catches that once the scan returns (it cannot be interrupted).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { replaceBase64Runs } from '../src/codecs/scan-encoded.js';
import { replaceDataUris, summarizeBase64Runs } from '../src/index.js';
import { seededBytes } from './encoded-payload-corpus.js';

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
  // What the runs are judged by is in encoded-payload.test.ts; here, how the scan cuts them.
  const random = (seed: string, bytes: number) => seededBytes(seed, bytes).toString('base64');
  const payload = random('payload', 60);

  it('replaces maximal runs of either alphabet, with up to two = after them', () => {
    expect(payload).toHaveLength(80);
    expect(replaceBase64Runs(`a ${payload}=== b`, mark)).toBe('a <82>= b');
    const url = payload.replaceAll('+', '-').replaceAll('/', '_');
    expect(replaceBase64Runs(`(${url})`, mark)).toBe('(<80>)');
    expect(replaceBase64Runs(`${payload}-${payload}`, mark)).toBe('<161>');
    expect(replaceBase64Runs(`${payload}.${payload} ${payload}`, mark)).toBe('<80>.<80> <80>');
  });

  it('summarizes with the length of what it replaced', () => {
    expect(summarizeBase64Runs(`x ${payload}== y`)).toBe('x [base64, 82 characters omitted] y');
  });

  it('keeps URL parts and named references under 200 characters, not over', () => {
    expect(replaceBase64Runs(`https://a.example/?state=${payload}&x=1 ${payload}`, mark)).toBe(
      `https://a.example/?state=${payload}&x=1 <80>`,
    );
    expect(replaceBase64Runs(`"next_token": "${payload}" "thumb": "${payload}"`, mark)).toBe(
      `"next_token": "${payload}" "thumb": "<80>"`,
    );
    expect(replaceBase64Runs(payload, mark, 'UploadId')).toBe(payload);
    expect(replaceBase64Runs(payload, mark, 'paid')).toBe('<80>');
    const long = random('long', 160);
    expect(replaceBase64Runs(`https://a.example/?data=${long}`, mark)).toBe('https://a.example/?data=<216>');
    expect(replaceBase64Runs(long, mark, 'SessionToken')).toBe('<216>');
  });

  it('keeps the parts of a JWT together, and nothing else joined by dots', () => {
    const header = Buffer.from('{"alg":"RS256"}').toString('base64url');
    const token = `${header}.${payload}.${payload}`;
    expect(replaceBase64Runs(`id ${token} end`, mark)).toBe(`id ${token} end`);
    expect(replaceBase64Runs(`${payload}.${header}.${payload}`, mark)).toBe(`<80>.${header}.${payload}`);
    expect(replaceBase64Runs(`${header} ${payload}`, mark)).toBe(`${header} <80>`);
  });

  it(
    'replaces a 10 MiB run (a regular expression overflows its stack on it)',
    () => {
      const run = randomBytes((10 * MIB * 3) / 4).toString('base64');
      expect(replaceBase64Runs(`x ${run}== y`, mark)).toBe(`x <${10 * MIB + 2}> y`);
    },
    TIMEOUT,
  );

  it(
    'keeps 10 MiB of words, a 10 MiB lower-case run and 2 million JWT-like dotted parts in linear time',
    () => {
      const words = 'GetUserProfileImage/'.repeat((10 * MIB) / 20);
      expect(replaceBase64Runs(words, mark)).toBe(words);
      const lower = 'ab1-'.repeat((10 * MIB) / 4);
      expect(replaceBase64Runs(lower, mark)).toBe(lower);
      const dotted = `eyJ${'.eyJhbGc'.repeat(2_000_000)}`;
      expect(replaceBase64Runs(dotted, mark)).toBe(dotted);
    },
    TIMEOUT,
  );

  it(
    'takes linear time on a million named runs and a million URLs',
    () => {
      const named = `"UploadId": "${payload}" `.repeat(100_000);
      expect(replaceBase64Runs(named, mark)).toBe(named);
      const urls = 'http://'.repeat(1_000_000);
      expect(replaceBase64Runs(urls, mark)).toBe(urls);
    },
    TIMEOUT,
  );
});
