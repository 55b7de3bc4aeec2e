// The drivers' `ping` (readiness probes): it resolves on a working backend, rejects with the
// backend's error on a broken one, and changes no blob. Local disk: a fresh root is made ready, a
// root replaced by a file fails. S3 (s3rver on loopback): the bucket answers, a missing bucket
// fails, an aborted ping rejects.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createS3BlobDriver } from '../../src/blob/s3.js';
import { streamOf } from '../support/streams.js';
import { keysOf } from './driver-suite.js';

describe('local driver ping', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ferry-ping-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('makes a fresh root ready and leaves nothing in it', async () => {
    const root = join(dir, 'fresh', 'blobs');
    const driver = createLocalBlobDriver({ root });
    await driver.ping();
    expect(await readdir(root)).toEqual(['.tmp']);
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    await driver.put('users/u/f', streamOf([Buffer.from('bytes')]));
    await driver.ping();
    expect(await keysOf(driver, 'users/')).toEqual(['users/u/f']);
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
  });

  it('rejects when the root has been replaced by a file', async () => {
    const root = join(dir, 'replaced');
    const driver = createLocalBlobDriver({ root });
    await driver.ping();
    await rm(root, { recursive: true });
    await writeFile(root, 'not a directory');
    await expect(driver.ping()).rejects.toMatchObject({ code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) });
  });

  it('rejects at once when aborted', async () => {
    const driver = createLocalBlobDriver({ root: join(dir, 'aborted') });
    await expect(driver.ping({ signal: AbortSignal.abort(new Error('probe timed out')) })).rejects.toThrow(
      'probe timed out',
    );
  });
});

describe('S3 driver ping', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(async () => server?.stop());

  const options = () => ({
    bucket: server.bucket,
    endpoint: server.endpoint,
    region: server.region,
    credentials: server.credentials,
    prefix: 'ping-test/',
  });

  it('resolves on the bucket, empty or not', async () => {
    const driver = createS3BlobDriver(options());
    try {
      await driver.ping();
      await driver.put('users/u/f', streamOf([Buffer.from('bytes')]));
      await driver.ping();
      expect(await keysOf(driver, 'users/')).toEqual(['users/u/f']);
    } finally {
      await driver.close?.();
    }
  });

  it('rejects for a missing bucket', async () => {
    const missing = createS3BlobDriver({ ...options(), bucket: 'no-such-bucket-for-ping' });
    try {
      await expect(missing.ping()).rejects.toMatchObject({ name: 'NoSuchBucket' });
    } finally {
      await missing.close?.();
    }
  });

  it('rejects when aborted', async () => {
    const driver = createS3BlobDriver(options());
    try {
      await expect(driver.ping({ signal: AbortSignal.abort() })).rejects.toMatchObject({
        name: 'AbortError',
      });
    } finally {
      await driver.close?.();
    }
  });
});
