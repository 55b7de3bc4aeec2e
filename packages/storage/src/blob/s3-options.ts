// Option checks and client settings for the S3 driver (s3.ts), kept apart so the driver file
// reads as its operations. Bad options throw when the driver is created, naming the option.

import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { createOptionError } from './errors.js';
import { assertBlobPrefix } from './keys.js';
import type { S3BlobDriverOptions } from './s3.js';

export const S3_DRIVER_NAME = 's3';
const DRIVER_NAME = S3_DRIVER_NAME;
const MIB = 1024 * 1024;
/** S3 refuses parts under 5 MiB (except the last), and lib-storage checks it too. */
const MIN_PART_SIZE = 5 * MIB;
const MAX_PART_SIZE = 5 * 1024 * MIB;

export interface S3Settings {
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  partSize: number;
  queueSize: number;
  listPageSize: number;
}

export function validateS3Options(options: S3BlobDriverOptions): S3Settings {
  if (typeof options?.bucket !== 'string' || options.bucket === '') {
    throw createOptionError(DRIVER_NAME, 'bucket');
  }
  let prefix = options.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) prefix = `${prefix}/`;
  try {
    assertBlobPrefix(DRIVER_NAME, prefix);
  } catch {
    throw createOptionError(DRIVER_NAME, 'prefix', 'must be segments of [A-Za-z0-9._-] separated by "/"');
  }
  const partSize = options.partSizeBytes ?? 8 * MIB;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE) {
    throw createOptionError(DRIVER_NAME, 'partSizeBytes', 'must be an integer between 5 MiB and 5 GiB');
  }
  const queueSize = options.queueSize ?? 4;
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
    throw createOptionError(DRIVER_NAME, 'queueSize', 'must be an integer >= 1');
  }
  const listPageSize = options.listPageSize ?? 1000;
  if (!Number.isSafeInteger(listPageSize) || listPageSize < 1 || listPageSize > 1000) {
    throw createOptionError(DRIVER_NAME, 'listPageSize', 'must be an integer between 1 and 1000');
  }
  if (options.client !== undefined) {
    const clash = (['endpoint', 'region', 'forcePathStyle', 'credentials'] as const).find(
      (name) => options[name] !== undefined,
    );
    if (clash) throw createOptionError(DRIVER_NAME, clash, 'cannot be combined with "client"');
  }
  if (options.endpoint !== undefined && !URL.canParse(options.endpoint)) {
    throw createOptionError(DRIVER_NAME, 'endpoint', 'must be a URL such as http://127.0.0.1:9000');
  }
  return { bucket: options.bucket, prefix, partSize, queueSize, listPageSize };
}

export function s3ClientConfig(options: S3BlobDriverOptions): S3ClientConfig {
  const config: S3ClientConfig = {
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
  };
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  return config;
}
