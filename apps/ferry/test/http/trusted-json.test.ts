// The hot file routes send toFileDto's object with JSON.stringify (http/trusted-json.ts) instead of
// the zod response serializer. That is only right while both give the same bytes: checked here for
// any record, stored info cells with extra or wrongly typed keys included, and over HTTP.
import { FileDtoSchema, FilePageSchema } from '@ferry/contract';
import type { FileRecord } from '@ferry/storage';
import fc from 'fast-check';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFileDto } from '../../src/files/file-dto.js';
import { trustedSerializerCompiler } from '../../src/http/trusted-json.js';
import { http, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';

const zodSerialize = (schema: unknown) =>
  serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' } as Parameters<
    typeof serializerCompiler
  >[0]);

const date = fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true });
const infoValue = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string());
const record: fc.Arbitrary<FileRecord & { unchanged?: boolean }> = fc.record({
  id: fc.uuid({ version: 4 }),
  owner: fc.uuid({ version: 4 }),
  name: fc.string({ minLength: 1 }),
  version: fc.integer({ min: 1, max: 1000 }),
  size: fc.integer({ min: 0, max: 2 ** 40 }),
  mime: fc.string(),
  sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  source: fc.constantFrom('uploaded', 'generated', 'deferred'),
  category: fc.option(fc.string(), { nil: null }),
  description: fc.option(fc.string(), { nil: null }),
  sessionId: fc.option(fc.string(), { nil: null }),
  persist: fc.boolean(),
  expiresAt: fc.option(date, { nil: null }),
  createdAt: date,
  // What a JSON cell may hold: the schema's keys with any type, and keys it does not know.
  info: fc.option(
    fc.dictionary(
      fc.constantFrom(
        'rows',
        'columns',
        'width',
        'height',
        'pages',
        'deferredReason',
        'nextActions',
        'other',
      ),
      fc.oneof(infoValue, fc.array(fc.string()), fc.array(infoValue)),
    ),
    { nil: null },
  ) as fc.Arbitrary<FileRecord['info']>,
  blobKey: fc.string(),
  unchanged: fc.option(fc.boolean(), { nil: undefined }),
});

describe('toFileDto + JSON.stringify', () => {
  it('gives the bytes the zod response serializer gives, for any record', () => {
    const viaZod = zodSerialize(FileDtoSchema);
    const trusted = trustedSerializerCompiler({ httpStatus: '200' } as never);
    fc.assert(
      fc.property(record, (file) => {
        const dto = toFileDto(file);
        expect(trusted(dto)).toBe(viaZod(dto));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a stored info cell to the schema: unknown keys and wrong types stay out', () => {
    const file = fc.sample(record, { numRuns: 1, seed: 1 })[0] as FileRecord;
    const info = { rows: 3, width: '7', other: 'secret', nextActions: ['edit', 1] } as never;
    expect(toFileDto({ ...file, info }).info).toEqual({ rows: 3 });
  });

  it('leaves error bodies to the zod serializer', () => {
    const error = trustedSerializerCompiler({
      schema: FileDtoSchema,
      httpStatus: '4xx',
      method: 'GET',
      url: '/x',
    } as never);
    expect(() => error({ not: 'a file' })).toThrow();
  });
});

describe('the file routes over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
  });
  afterAll(async () => t?.close());

  it('answer what the schemas describe, byte for byte', async () => {
    const stored = await uploadOk(t.url, 'hello.txt', Buffer.from('hello'));
    const listing = await http(t.url, '/api/files?limit=50');
    expect(listing.status).toBe(200);
    expect(listing.text).toBe(zodSerialize(FilePageSchema)(listing.json()));
    expect(listing.json<{ items: { id: string }[] }>().items.map((item) => item.id)).toEqual([stored.id]);
    const metadata = await http(t.url, `/api/files/${stored.id}`);
    expect(metadata.status).toBe(200);
    expect(metadata.text).toBe(zodSerialize(FileDtoSchema)(metadata.json()));
    const missing = await http(t.url, '/api/files/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json<{ results: { error: string } }>().results.error).toMatch(/not found/i);
  });
});
