// S3 blob driver for scale mode: AWS S3, MinIO, Ceph RGW, or any S3-compatible store. Puts go
// through lib-storage's Upload, which streams the body in parts (at most partSize × queueSize bytes
// in memory) and aborts the multipart upload on failure, so no object appears under the key unless
// the put succeeds; visibility of the final PUT or CompleteMultipartUpload is the store's own
// atomic switch. Gets stream the response body as it arrives.

import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobDriver, BlobEntry, BlobPartial, BlobPutOptions, BlobStat, ByteRange } from './driver.js';
import { createAbortError, createBlobError } from './errors.js';
import { assertBlobKey, assertBlobPrefix, assertByteRange, assertRangeWithinSize } from './keys.js';
import { S3_DRIVER_NAME, s3ClientConfig, validateS3Options } from './s3-options.js';
import { fitToRange } from './s3-range.js';

const DRIVER_NAME = S3_DRIVER_NAME;

export interface S3BlobDriverOptions {
  /** Bucket that holds the blobs. It must exist; the driver never creates buckets. */
  bucket: string;
  /**
   * Folder inside the bucket, e.g. `ferry/`; a missing trailing `/` is added. Keys are stored as
   * `<prefix><key>` and `list` strips it again.
   * @default ''
   */
  prefix?: string;
  /**
   * Endpoint of an S3-compatible store, e.g. `http://127.0.0.1:9000` for MinIO, the RGW URL for
   * Ceph, or s3rver in tests. Leave unset for AWS S3, where the region picks the endpoint.
   */
  endpoint?: string;
  /** @default 'us-east-1' (MinIO, RGW and s3rver accept any region) */
  region?: string;
  /**
   * Path-style URLs (`<endpoint>/<bucket>/<key>`) instead of virtual-hosted ones
   * (`<bucket>.<endpoint>/<key>`). Self-hosted stores rarely have wildcard DNS for buckets.
   * @default true when `endpoint` is set, false otherwise
   */
  forcePathStyle?: boolean;
  /** Static credentials. When unset, the SDK's default chain (env, profile, instance role) applies. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Multipart part size. Memory per put is about `partSizeBytes × queueSize`; S3 allows at most
   * 10,000 parts, so the default carries objects up to about 78 GiB. At least 5 MiB.
   * @default 8 MiB
   */
  partSizeBytes?: number;
  /** Parts uploaded concurrently per put. @default 4 */
  queueSize?: number;
  /** Keys per ListObjectsV2 page. Lower it only to exercise paging in tests. @default 1000 */
  listPageSize?: number;
  /**
   * A ready client, e.g. shared with other code. It cannot be combined with `endpoint`, `region`,
   * `forcePathStyle` or `credentials`, and `close()` leaves it open: its owner destroys it.
   */
  client?: S3Client;
}

export function createS3BlobDriver(options: S3BlobDriverOptions): BlobDriver {
  const settings = validateS3Options(options);
  const { bucket, prefix, partSize, queueSize, listPageSize } = settings;
  const ownsClient = options.client === undefined;
  const client = options.client ?? new S3Client(s3ClientConfig(options));
  const objectKey = (key: string): string => {
    assertBlobKey(DRIVER_NAME, key);
    return `${prefix}${key}`;
  };

  const stat = async (key: string): Promise<BlobStat | null> => {
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  };

  function listEntries(listPrefix: string): AsyncIterable<BlobEntry> {
    assertBlobPrefix(DRIVER_NAME, listPrefix);
    return (async function* () {
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: `${prefix}${listPrefix}`,
            ContinuationToken: token,
            MaxKeys: listPageSize,
          }),
        );
        for (const object of page.Contents ?? []) {
          if (!object.Key?.startsWith(prefix)) continue;
          yield {
            key: object.Key.slice(prefix.length),
            size: object.Size ?? 0,
            modifiedAt: object.LastModified ?? new Date(0),
          };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    })();
  }

  /** Multipart uploads under the prefix initiated before the cutoff, page by page. */
  async function* staleUploads(olderThanMs: number): AsyncGenerator<BlobPartial> {
    const cutoff = Date.now() - olderThanMs;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    let page: ListMultipartUploadsCommandOutput;
    do {
      page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix || undefined,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key?.startsWith(prefix) || !upload.UploadId || !upload.Initiated) continue;
        if (upload.Initiated.getTime() > cutoff) continue;
        yield { id: upload.UploadId, key: upload.Key.slice(prefix.length), startedAt: upload.Initiated };
      }
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    } while (page.IsTruncated);
  }

  return {
    name: DRIVER_NAME,

    async ping(pingOptions: { signal?: AbortSignal } = {}): Promise<void> {
      // A one-key listing under the prefix: the permission `list` needs, proof that the bucket
      // exists and the credentials hold, and one request whatever the bucket holds.
      await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, MaxKeys: 1 }),
        pingOptions.signal ? { abortSignal: pingOptions.signal } : {},
      );
    },

    async put(key: string, body: Readable, putOptions: BlobPutOptions = {}): Promise<{ size: number }> {
      const { signal, contentType } = putOptions;
      let Key: string;
      try {
        Key = objectKey(key);
        if (signal?.aborted) throw createAbortError(DRIVER_NAME, signal);
      } catch (error) {
        body.destroy();
        throw error;
      }
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          callback(null, chunk);
        },
      });
      // An input error or an abort destroys `counter` with that error, which fails the upload's
      // read loop; Upload then aborts the multipart upload before rejecting. The signal is not
      // handed to Upload: its abort() rejects at once while a final PutObject or
      // CompleteMultipartUpload already sent can still commit. So an abort that arrives after the
      // last input byte cannot recall the commit, and the put then resolves, truthfully.
      const piping = (signal ? pipeline(body, counter, { signal }) : pipeline(body, counter)).catch(
        () => undefined,
      );
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key, Body: counter, ContentType: contentType },
        partSize,
        queueSize,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // Report why the put failed, not what failed next: when AbortMultipartUpload itself fails
        // (s3rver lacks it), Upload rejects with that error instead of the input's. An input
        // that only errored because Upload stopped reading it (the stream teardown's AbortError,
        // e.g. after the store went away mid-part) is a consequence, not the reason.
        const inputError = isTeardown(body.errored) ? undefined : body.errored;
        const reason = signal?.aborted ? createAbortError(DRIVER_NAME, signal) : (inputError ?? error);
        counter.destroy();
        body.destroy();
        await piping;
        throw reason;
      }
      await piping;
      return { size };
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const Key = objectKey(key);
      if (range) assertByteRange(DRIVER_NAME, range);
      // `bytes=0-` means the whole object; asking for it plainly also avoids S3's 416 on empty objects.
      const ranged = range !== undefined && (range.start > 0 || range.end !== undefined);
      let response: GetObjectCommandOutput;
      try {
        response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key,
            Range: ranged ? `bytes=${range.start}-${range.end ?? ''}` : undefined,
          }),
        );
      } catch (error) {
        if (isNotFound(error)) throw notFound(key, error);
        if (ranged && isInvalidRange(error)) {
          // S3 answers 416 for every range of an empty object; the contract gives an empty stream.
          const info = await stat(key);
          if (!info) throw notFound(key, error);
          assertRangeWithinSize(DRIVER_NAME, key, range, info.size);
          if (info.size === 0) return Readable.from([]);
          throw createBlobError(DRIVER_NAME, 'ERANGE', `range refused for ${JSON.stringify(key)}`, {
            cause: error,
          });
        }
        throw error;
      }
      const body = response.Body as Readable;
      if (!ranged) return body;
      return fitToRange(DRIVER_NAME, key, body, range, response.ContentRange, response.ContentLength);
    },

    stat,

    async delete(key: string): Promise<void> {
      // DeleteObject succeeds for a missing key, which is the idempotence the contract asks for.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },

    list(listPrefix: string): AsyncIterable<string> {
      const entries = listEntries(listPrefix);
      return (async function* () {
        for await (const entry of entries) yield entry.key;
      })();
    },

    listEntries,

    listPartials: staleUploads,

    /**
     * Aborts multipart uploads under the prefix started more than `olderThanMs` ago. An upload
     * still running (in any process) is aborted too when older, so pass more than the longest put.
     * Needs ListMultipartUploads, which s3rver does not implement (AWS, MinIO and RGW do).
     */
    async sweepPartials(olderThanMs: number): Promise<number> {
      let removed = 0;
      for await (const upload of staleUploads(olderThanMs)) {
        // The stored key as listed, unchecked: an upload under the prefix goes whatever its name.
        const Key = `${prefix}${upload.key ?? ''}`;
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: upload.id }));
        removed += 1;
      }
      return removed;
    },

    async close(): Promise<void> {
      if (ownsClient) client.destroy();
    },
  };
}

interface SdkErrorShape {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The AbortError a stream gets when its reader (here Upload's part loop) stops reading it. */
function isTeardown(error: Error | null): boolean {
  return error?.name === 'AbortError' && (error as { code?: unknown }).code === 'ABORT_ERR';
}

function isNotFound(error: unknown): boolean {
  const e = error as SdkErrorShape | undefined;
  // By name, not by status: a 404 NoSuchBucket is a configuration error, not a missing blob.
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound';
}

function isInvalidRange(error: unknown): boolean {
  const e = error as SdkErrorShape | undefined;
  return e?.name === 'InvalidRange' || e?.$metadata?.httpStatusCode === 416;
}

function notFound(key: string, cause?: unknown) {
  return createBlobError(DRIVER_NAME, 'ENOENT', `no blob at key ${JSON.stringify(key)}`, { cause });
}
