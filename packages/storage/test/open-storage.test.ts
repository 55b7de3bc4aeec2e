// Configuration picks the drivers: nothing set → local disk + SQLite under the data dir;
// FERRY_S3_* and FERRY_DATABASE_URL → S3 + PostgreSQL (against the real s3rver and PostgreSQL).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadStorageConfig } from '../src/config/load-config.js';
import { openStorage } from '../src/open-storage.js';
import { readAll, streamOfBuffer } from './support/streams.js';

let dir: string;
let s3: S3TestServer;
let schema: TestSchema;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-open-'));
  s3 = await startS3Server();
  schema = await createTestSchema('ferry_open');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await s3?.stop();
  await schema?.drop();
});

it('the embedded default needs nothing: local disk and SQLite under FERRY_DATA_DIR', async () => {
  const config = loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'embedded') } });
  const storage = await openStorage(config);
  try {
    expect(storage.modes).toEqual({ blob: 'local', catalog: 'sqlite', tokens: 'ephemeral' });
    const owner = await storage.files.ensureUser('dev');
    const file = await storage.files.put(owner, 'a.txt', streamOfBuffer(Buffer.from('embedded')));
    expect((await stat(join(dir, 'embedded', 'catalog.db'))).isFile()).toBe(true);
    expect((await stat(join(dir, 'embedded', 'blobs', file.blobKey))).size).toBe(8);
    const token = storage.files.signDownload(owner, file.id);
    expect(storage.files.verifyDownload(token, { fileId: file.id })).toMatchObject({ ok: true });
  } finally {
    await storage.close();
  }
});

it('FERRY_S3_* and FERRY_DATABASE_URL switch to scale mode', async () => {
  const env = {
    FERRY_S3_ENDPOINT: s3.endpoint,
    FERRY_S3_BUCKET: s3.bucket,
    FERRY_S3_PREFIX: 'ferry/',
    FERRY_S3_FORCE_PATH_STYLE: 'true',
    FERRY_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    FERRY_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    FERRY_DATABASE_URL: schema.url,
    FERRY_DATABASE_SCHEMA: schema.schema,
    FERRY_TOKEN_SECRET: 's'.repeat(40),
  };
  const storage = await openStorage(loadStorageConfig({ env }));
  try {
    expect(storage.modes).toEqual({ blob: 's3', catalog: 'postgres', tokens: 'config' });
    const owner = await storage.files.ensureUser('scale');
    const file = await storage.files.put(owner, 'b.txt', streamOfBuffer(Buffer.from('scaled')));
    expect((await readAll((await storage.files.get(owner, { id: file.id })).stream)).toString()).toBe(
      'scaled',
    );
    expect(file.blobKey).toBe(`users/${owner}/${file.id}`);
  } finally {
    await storage.close();
  }
});
