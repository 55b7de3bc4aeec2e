import { constants } from 'node:buffer';

// Splits a byte stream into newline-delimited messages. The SDK's ReadBuffer caps a message at
// 10 MB (STDIO_DEFAULT_MAX_BUFFER_SIZE) and, worse for large results, concatenates the whole
// buffer on every chunk and rescans it for '\n' (quadratic: a 50 MB line arriving in 64 KB
// chunks copies ~20 GB). This keeps the chunks of the unfinished line in a list, looks for '\n'
// only in new bytes, and joins once per line.

/**
 * The largest line that still decodes to a JavaScript string (V8's limit, ~512 MiB on 64-bit):
 * the practical ceiling for one JSON-RPC message, so tool results far above 10 MB pass.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

export class LineTooLongError extends Error {
  override readonly name = 'LineTooLongError';
  constructor(readonly limit: number) {
    super(`A message from the server exceeded ${limit} bytes`);
  }
}

export class LineBuffer {
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #maxLineBytes: number;

  constructor(maxLineBytes: number = MAX_LINE_BYTES) {
    this.#maxLineBytes = maxLineBytes;
  }

  /**
   * Adds `chunk` and returns the lines it completes, without their '\n' (a trailing '\r' is
   * kept; the parser ignores it). Throws LineTooLongError, after dropping the partial line, when
   * a line grows past the limit.
   */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      this.#check(piece.length);
      lines.push(
        this.#size === 0 ? piece : Buffer.concat([...this.#chunks, piece], this.#size + piece.length),
      );
      this.#chunks = [];
      this.#size = 0;
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#check(rest.length);
      this.#chunks.push(rest);
      this.#size += rest.length;
    }
    return lines;
  }

  /** Bytes of the line not yet terminated. */
  get pendingBytes(): number {
    return this.#size;
  }

  clear(): void {
    this.#chunks = [];
    this.#size = 0;
  }

  #check(adding: number): void {
    if (this.#size + adding > this.#maxLineBytes) {
      this.clear();
      throw new LineTooLongError(this.#maxLineBytes);
    }
  }
}
