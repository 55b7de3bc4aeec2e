// Errors thrown by blob drivers. Codes follow Node's fs codes so callers can treat a missing blob
// on local disk and on S3 alike; the message names the driver, as unstorage's `[unstorage] [fs]`.

/** `ENOENT`: no blob at the key. `ERANGE`: unsatisfiable byte range. `EINVAL`: malformed key or prefix. */
export type BlobErrorCode = 'ENOENT' | 'ERANGE' | 'EINVAL';

export interface BlobError extends Error {
  code: BlobErrorCode;
  /** Name of the driver that threw (`local`, `s3`). */
  driver: string;
}

function prefix(driver: string): string {
  return `[ferry/storage] [${driver}]`;
}

/** ERANGE is a RangeError and EINVAL a TypeError, so `instanceof` checks keep working too. */
export function createBlobError(
  driver: string,
  code: BlobErrorCode,
  message: string,
  options?: { cause?: unknown },
): BlobError {
  const text = `${prefix(driver)} ${message}`;
  const error =
    code === 'ERANGE'
      ? new RangeError(text, options)
      : code === 'EINVAL'
        ? new TypeError(text, options)
        : new Error(text, options);
  return Object.assign(error, { code, driver });
}

export function isBlobError(error: unknown, code?: BlobErrorCode): error is BlobError {
  return (
    error instanceof Error &&
    typeof (error as Partial<BlobError>).driver === 'string' &&
    (code === undefined || (error as Partial<BlobError>).code === code)
  );
}

/** Bad options fail when the driver is created, never on the first request. */
export function createOptionError(driver: string, option: string, problem = 'is required'): Error {
  return new TypeError(`${prefix(driver)} option "${option}" ${problem}`);
}

/** Same shape as the error `stream.pipeline` rejects with on abort: name `AbortError`, code `ABORT_ERR`. */
export function createAbortError(driver: string, signal: AbortSignal): Error {
  return Object.assign(new Error(`${prefix(driver)} the put was aborted`, { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}
