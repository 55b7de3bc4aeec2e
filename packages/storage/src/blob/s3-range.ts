// Makes a ranged S3 response hold exactly the requested bytes. Servers may answer a Range with
// more than asked: s3rver reads `bytes=0-0` as "from 0 to the end" (its `end || Infinity`), and a
// proxy may drop the Range header and send the whole object (200, no Content-Range). Trimming
// here keeps the driver contract on every backend; a response that misses requested bytes fails.

import { Readable } from 'node:stream';
import type { ByteRange } from './driver.js';
import { createBlobError } from './errors.js';
import { assertRangeWithinSize } from './keys.js';

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

export function fitToRange(
  driver: string,
  key: string,
  body: Readable,
  range: ByteRange,
  contentRange: string | undefined,
  contentLength: number | undefined,
): Readable {
  let servedStart = 0;
  let servedEnd: number;
  let total: number;
  if (contentRange === undefined) {
    total = contentLength ?? 0;
    servedEnd = total - 1;
  } else {
    // `bytes */0` and other forms without a served span mean nothing was served.
    const match = CONTENT_RANGE.exec(contentRange);
    if (!match) {
      body.destroy();
      if (/\/0$/.test(contentRange)) return Readable.from([]);
      throw unexpected(driver, key, range, contentRange);
    }
    servedStart = Number(match[1]);
    servedEnd = Number(match[2]);
    total = match[3] === '*' ? servedEnd + 1 : Number(match[3]);
  }
  if (total === 0) {
    // s3rver answers a range of an empty object with a length it never sends; drop that body.
    body.destroy();
    return Readable.from([]);
  }
  try {
    assertRangeWithinSize(driver, key, range, total);
  } catch (error) {
    body.destroy();
    throw error;
  }
  const wantEnd = Math.min(range.end ?? total - 1, total - 1);
  if (servedStart === range.start && servedEnd === wantEnd) return body;
  if (servedStart > range.start || servedEnd < wantEnd) {
    body.destroy();
    throw unexpected(driver, key, range, contentRange ?? `whole object of ${total} bytes`);
  }
  return Readable.from(slice(body, range.start - servedStart, wantEnd - range.start + 1));
}

/** Skips `skip` bytes, yields the next `length`, then stops reading (which destroys `body`). */
async function* slice(body: Readable, skip: number, length: number): AsyncGenerator<Buffer> {
  let toSkip = skip;
  let left = length;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let part = chunk;
    if (toSkip > 0) {
      if (part.length <= toSkip) {
        toSkip -= part.length;
        continue;
      }
      part = part.subarray(toSkip);
      toSkip = 0;
    }
    if (part.length >= left) {
      yield part.subarray(0, left);
      return;
    }
    left -= part.length;
    yield part;
  }
}

function unexpected(driver: string, key: string, range: ByteRange, served: string): Error {
  return createBlobError(
    driver,
    'ERANGE',
    `server answered ${served} for bytes=${range.start}-${range.end ?? ''} of ${JSON.stringify(key)}`,
  );
}
