// The base64 rule both redactions for the model share (src/codecs/encoded-payload.ts, found in text
// by scan-encoded.ts): the fixed corpus of what it must leave alone and what it must summarize,
// then two properties over generated text. fast-check prints the seed of a failure, which replays it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_RUN, MIN_PAYLOAD_RUN } from '../src/codecs/encoded-payload.js';
import { summarizeBase64Runs } from '../src/index.js';
import { LEFT_ALONE, SUMMARIZED } from './encoded-payload-corpus.js';

const summary = (run: string) => `[base64, ${run.length} characters omitted]`;

describe('the corpus', () => {
  it.each(LEFT_ALONE)('leaves alone: $what', ({ text }) => {
    expect(summarizeBase64Runs(text)).toBe(text);
  });

  it.each(SUMMARIZED)('summarizes: $what', ({ before, payload, after }) => {
    expect(summarizeBase64Runs(before + payload + after)).toBe(before + summary(payload) + after);
  });
});

const toBase64 = (bytes: Uint8Array, variant: 'padded' | 'unpadded' | 'url') => {
  const buffer = Buffer.from(bytes);
  if (variant === 'url') return buffer.toString('base64url');
  const padded = buffer.toString('base64');
  return variant === 'padded' ? padded : padded.replace(/=+$/, '');
};

describe('generated text', () => {
  it(`summarizes any random bytes that encode to ${MIN_PAYLOAD_RUN} characters or more`, () => {
    const bytes = fc.uint8Array({ minLength: (MIN_PAYLOAD_RUN * 3) / 4, maxLength: 600 });
    const variant = fc.constantFrom('padded' as const, 'unpadded' as const, 'url' as const);
    // What may stand around a payload without making it a reference (a URL, an id's value).
    const before = fc.constantFrom('', ' ', 'x ', '"', '\n', '{"thumbnail":"', 'raw: ', '(', '<data>');
    const after = fc.constantFrom('', ' ', '"', '\n', '"}', ')', '. ', ',', '</data>');
    fc.assert(
      fc.property(bytes, variant, before, after, (bytes, variant, before, after) => {
        const payload = toBase64(bytes, variant);
        expect(summarizeBase64Runs(before + payload + after)).toBe(before + summary(payload) + after);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves alone text made of identifiers, paths, ids, hashes, JWTs, links and base64 of text', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const text = pieces.join(' ');
        expect(summarizeBase64Runs(text)).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });
});

const WORDS = [
  'get',
  'set',
  'user',
  'profile',
  'image',
  'url',
  'account',
  'settings',
  'page',
  'file',
  'files',
  'report',
  'quarterly',
  'sales',
  'region',
  'north',
  'data',
  'table',
  'row',
  'column',
  'value',
  'list',
  'item',
  'items',
  'order',
  'customer',
  'invoice',
  'payment',
  'status',
  'request',
  'response',
  'handler',
  'service',
  'factory',
  'manager',
  'controller',
  'view',
  'model',
  'client',
  'server',
  'session',
  'token',
  'upload',
  'download',
  'thumbnail',
  'preview',
  'document',
  'draft',
  'final',
  'summary',
  'chart',
  'export',
  'import',
  'config',
  'default',
  'options',
  'error',
  'warning',
  'message',
  'event',
  'stream',
  'buffer',
  'reader',
  'writer',
  'parser',
  'format',
  'test',
  'should',
  'when',
  'with',
  'from',
  'into',
  'for',
  'and',
  'the',
  'new',
  'old',
  'main',
  'source',
  'target',
  'project',
  'workspace',
  'library',
  'application',
  'support',
  'documents',
  'desktop',
  'photos',
  'vacation',
  'backup',
  'archive',
  'version',
  'release',
  'build',
  'deploy',
  'production',
  'staging',
  'internal',
  'public',
  'private',
  'shared',
  'common',
  'utils',
  'helpers',
];
const word = fc.constantFrom(...WORDS);
const capitalized = word.map((w) => w[0]?.toUpperCase() + w.slice(1));
const digits = fc.integer({ min: 0, max: 99_999 }).map(String);
/** A word of an identifier: mostly words, sometimes a number (a year, a version). */
const part = fc.oneof({ arbitrary: word, weight: 6 }, { arbitrary: digits, weight: 1 });

const identifier = fc.oneof(
  fc
    .tuple(word, fc.array(fc.oneof(capitalized, digits), { minLength: 1, maxLength: 7 }))
    .map(([first, rest]) => first + rest.join('')),
  fc
    .array(fc.oneof({ arbitrary: capitalized, weight: 6 }, { arbitrary: digits, weight: 1 }), {
      minLength: 2,
      maxLength: 8,
    })
    .map((parts) => parts.join('')),
  fc
    .tuple(fc.array(part, { minLength: 2, maxLength: 8 }), fc.constantFrom('_', '-'))
    .map(([parts, joint]) => parts.join(joint)),
);
const path = fc
  .tuple(fc.boolean(), fc.array(fc.oneof(identifier, word, capitalized), { minLength: 2, maxLength: 8 }))
  .map(([absolute, segments]) => (absolute ? '/' : '') + segments.join('/'));
const hex = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: min, maxLength: max });
const digestOrSha = fc.oneof(
  hex(7, 128),
  hex(40, 64).map((h) => h.toUpperCase()),
);
const randomBase64 = (minBytes: number, maxBytes: number) =>
  fc
    .uint8Array({ minLength: minBytes, maxLength: maxBytes })
    .map((bytes) => Buffer.from(bytes).toString('base64url'));
/** Printable ASCII (no control characters) and some accented and CJK text, as UTF-8. */
const text = fc.string({
  unit: fc.oneof(
    {
      arbitrary: fc.constantFrom(
        ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_"{}[]',
      ),
      weight: 20,
    },
    { arbitrary: fc.constantFrom('é', 'ü', 'ß', '東', '京', '—', '€'), weight: 1 },
  ),
  minLength: 1,
  maxLength: 45,
});
/** Base64 of text whose run stays under MAX_TEXT_RUN characters (at most 3 bytes a character). */
const base64OfText = text
  .filter((t) => Buffer.byteLength(t) * 4 < (MAX_TEXT_RUN - 4) * 3)
  .map((t) => Buffer.from(t).toString('base64'));
const jwt = fc
  .tuple(
    fc.record({
      alg: fc.constantFrom('HS256', 'RS256', 'ES256'),
      typ: fc.constant('JWT'),
      kid: fc.option(word),
    }),
    fc.record({ sub: text, iat: fc.nat(), scope: fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')) }),
    fc.uint8Array({ minLength: 32, maxLength: 512 }),
  )
  .map(([header, claims, signature]) =>
    [JSON.stringify(header), JSON.stringify(claims), signature]
      .map((part) => Buffer.from(part).toString('base64url'))
      .join('.'),
  );
const maxReferenceBytes = Math.floor(((MAX_TEXT_RUN - 1) * 3) / 4);
const link = fc
  .tuple(path, randomBase64(1, maxReferenceBytes))
  .map(([path, value]) => `https://files.example.com/${path}?state=${value}&page=2`);
const named = fc
  .tuple(
    fc.constantFrom('"nextPageToken": "', '<UploadId>', 'cursor=', "'etag': '"),
    randomBase64(1, maxReferenceBytes),
  )
  .map(([name, value]) => name + value);

const piece = fc.oneof(
  identifier,
  path,
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
  digestOrSha,
  randomBase64(1, ((MIN_PAYLOAD_RUN - 1) * 3) / 4 - 1),
  base64OfText,
  jwt,
  link,
  named,
);
