// An upload's bytes on their way to FileStore, counted. FileStore stops reading a file at its size
// limit (or when the quota refuses it), which says nothing of how large the file really is; this
// stage lets the route read what is left of that file afterwards, without keeping it, so the
// refusal can name the real size. It also stands between FileStore and the request: FileStore
// tearing its pipeline down destroys this stage, not the request, whose socket must stay open for
// the answer.
import { PassThrough, type Readable } from 'node:stream';

/** The size of an upload: exact once its end was read, otherwise only a lower bound. */
export type UploadSize = { exact: true; bytes: number } | { exact: false; moreThan: number };

export interface MeasuredBody {
  /** What FileStore reads: the source's bytes, untouched. */
  readonly body: Readable;
  /**
   * Once FileStore has stopped reading: reads the rest of the source without keeping it. Exact
   * when the source ends within `bound` bytes in all; otherwise it stops reading there (a client
   * sending gigabytes is not followed to the end) and says the file is larger than that.
   */
  measure(): Promise<UploadSize>;
}

export function measuredBody(source: Readable, bound: number): MeasuredBody {
  const body = new PassThrough();
  let bytes = 0;
  let ended = false;
  let brokeOff = false;
  let settle: ((size: UploadSize) => void) | undefined;

  // A source that stops early (busboy's own fileSize limit truncates a part) is larger than its count.
  const truncated = () => (source as Readable & { truncated?: boolean }).truncated === true;
  const result = (): UploadSize | undefined => {
    if (ended && !truncated()) return { exact: true, bytes };
    if (ended || bytes > bound) return { exact: false, moreThan: Math.min(bytes, bound) };
    // The client went away: at least what arrived, perhaps no more.
    if (brokeOff) return { exact: false, moreThan: Math.max(0, bytes - 1) };
    return undefined;
  };
  /** Settles a measure under way once the size is known; true when it did. */
  const check = (): boolean => {
    const size = settle && result();
    if (!size || !settle) return false;
    const done = settle;
    settle = undefined;
    source.pause();
    done(size);
    return true;
  };

  source.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (!body.destroyed) {
      if (!body.write(chunk)) source.pause();
      return;
    }
    // FileStore gave up on the file: read on only while measuring.
    if (settle) check();
    else source.pause();
  });
  body.on('drain', () => {
    if (!body.destroyed) source.resume();
  });
  source.once('end', () => {
    ended = true;
    if (!body.destroyed) body.end();
    check();
  });
  source.once('error', (error) => {
    brokeOff = true;
    body.destroy(error);
    check();
  });
  source.once('close', () => {
    if (ended) return;
    brokeOff = true;
    body.destroy(new Error('the upload broke off'));
    check();
  });

  return {
    body,
    measure: () =>
      new Promise<UploadSize>((resolve) => {
        // FileStore is done with the body (it refused the file): nothing more goes to it.
        body.destroy();
        settle = resolve;
        if (!check()) source.resume();
      }),
  };
}
