// fsck in scale mode: a PostgreSQL catalog (a fresh schema per test) and S3 blobs on s3rver.
// s3rver implements neither ListMultipartUploads (GET /<bucket>?uploads answers NotImplemented)
// nor AbortMultipartUpload (DELETE /<bucket>/<key>?uploadId=… answers MethodNotAllowed): fsck
// cannot list an unfinished multipart upload there, so it warns and leaves it, and the last test
// pins that behaviour of s3rver so that the day it changes, these tests are made to cover it.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createTestSchema } from '@ferry/test-helpers/postgres';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobDriver } from '../../src/blob/s3.js';
import { createPostgresCatalog } from '../../src/catalog/postgres.js';
import { streamOfBuffer } from '../support/streams.js';
import { describeFsck, type FsckBackend } from './fsck-suite.js';

let server: S3TestServer;
let client: S3Client;
/** The blob prefix of the backend the running test made. */
let prefix = '';

beforeAll(async () => {
  server = await startS3Server();
  client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    credentials: server.credentials,
    forcePathStyle: true,
  });
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

/** Where s3rver keeps a multipart upload until it is completed. */
const uploadDir = (uploadId: string) => join(server.directory, server.bucket, '._S3rver_uploads', uploadId);

describeFsck(
  'postgresql + s3 (s3rver)',
  async (): Promise<FsckBackend> => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-fsck-'));
    // A prefix of its own per test, so that tests sharing the bucket never see each other's keys.
    const blobPrefix = `t-${randomUUID()}/`;
    prefix = blobPrefix;
    const blobs = createS3BlobDriver({
      bucket: server.bucket,
      endpoint: server.endpoint,
      region: server.region,
      credentials: server.credentials,
      prefix: blobPrefix,
    });
    const schema = await createTestSchema('ferry_fsck');
    const catalog = await createPostgresCatalog({ connectionString: schema.url, schema: schema.schema });
    return {
      blobs,
      catalog,
      dir,
      async addBlob(key, bytes, ageMs) {
        await blobs.put(key, streamOfBuffer(bytes));
        // s3rver answers LastModified from its object file's mtime.
        const parts = `${blobPrefix}${key}`.split('/');
        const last = parts.pop();
        const then = new Date(Date.now() - ageMs);
        await utimes(join(server.directory, server.bucket, ...parts, `${last}._S3rver_object`), then, then);
      },
      async close() {
        await blobs.close?.();
        await catalog.close();
        await schema.drop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  {
    // What a put whose process died leaves: a multipart upload started, one part sent, never
    // completed. Its age cannot be set on s3rver (and it is never listed there anyway).
    async addPartialUpload() {
      const Key = `${prefix}users/fsck/${randomUUID()}`;
      const { UploadId } = await client.send(
        new CreateMultipartUploadCommand({ Bucket: server.bucket, Key }),
      );
      if (!UploadId) throw new Error('s3rver gave no UploadId');
      await client.send(
        new UploadPartCommand({
          Bucket: server.bucket,
          Key,
          UploadId,
          PartNumber: 1,
          Body: 'half an upload',
        }),
      );
      return UploadId;
    },
    partialUploadExists: async (_backend, id) =>
      access(uploadDir(id)).then(
        () => true,
        () => false,
      ),
    partialWarning: /^\[s3\] could not list partial uploads: .*not implemented/,
  },
);

describe('s3rver and multipart uploads', () => {
  it('lacks ListMultipartUploads and AbortMultipartUpload (what fsck cannot be tested against here)', async () => {
    const Key = `fsck-partial/${randomUUID()}`;
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: server.bucket, Key }));
    await expect(
      client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket })),
    ).rejects.toMatchObject({
      name: 'NotImplemented',
    });
    await expect(
      client.send(new AbortMultipartUploadCommand({ Bucket: server.bucket, Key, UploadId })),
    ).rejects.toMatchObject({ name: 'MethodNotAllowed' });
    await access(uploadDir(UploadId as string));
  });
});
