import { constants } from 'node:buffer';

// Splits a byte stream into newline-delimited messages. The SDK's ReadBuffer bounds its whole
// buffer (`maxBufferSize`, STDIO_DEFAULT_MAX_BUFFER_SIZE by default) rather than one message and,
// worse for large results, concatenates the whole buffer on every chunk and rescans it for '\n'
// (quadratic: a 50 MB line arriving in 64 KB chunks copies ~20 GB). This keeps the chunks of the
// unfinished line in a list, looks for '\n' only in new bytes, and joins once per line.
//
// A line over the limit is not held: once it passes the limit its bytes are dropped as they
// arrive, up to its '\n', keeping only its first and last bytes, where a JSON-RPC message says
// which request it answers (`{"jsonrpc":"2.0","id":…` first, or `…,"id":7}` last as the
// TypeScript SDK writes it). The transport fails that request; the stream stays in step.

/**
 * The largest line that still decodes to a JavaScript string (V8's limit, ~512 MiB on 64-bit):
 * the ceiling for any configured limit.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;
/** Bytes kept from the start and the end of a line too long to hold. */
const HEAD_BYTES = 4096;
const TAIL_BYTES = 1024;

export type LineEvent =
  | { kind: 'line'; line: Buffer }
  /** A line passed the limit: what was read of it is dropped, and the rest will be skipped. */
  | { kind: 'too-long'; head: Buffer }
  /** The end of that line: its full size and its last bytes. */
  | { kind: 'too-long-end'; bytes: number; tail: Buffer };

export class LineBuffer {
  #chunks: Buffer[] = [];
  #size = 0;
  /** Bytes of the line being skipped so far; -1 while not skipping. */
  #skipped = -1;
  #tail: Buffer = Buffer.alloc(0);
  readonly #maxLineBytes: number;

  constructor(maxLineBytes: number = MAX_LINE_BYTES) {
    this.#maxLineBytes = maxLineBytes;
  }

  /**
   * Adds `chunk` and returns what it completes, in order: whole lines without their '\n' (a
   * trailing '\r' is kept; the parser ignores it), and for a line over the limit a `too-long`
   * event when it passes the limit and a `too-long-end` event at its '\n'.
   */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#skipped < 0 && this.#size + piece.length > this.#maxLineBytes) {
        events.push({ kind: 'too-long', head: this.#head(piece) });
        this.#skipped = this.#size;
        this.#chunks = [];
        this.#size = 0;
      }
      if (this.#skipped >= 0) this.#skip(piece);
      else if (newline !== -1) events.push({ kind: 'line', line: this.#join(piece) });
      else if (piece.length > 0) {
        this.#chunks.push(piece);
        this.#size += piece.length;
      }
      if (newline === -1) break;
      if (this.#skipped >= 0) {
        events.push({ kind: 'too-long-end', bytes: this.#skipped, tail: this.#tail });
        this.#skipped = -1;
        this.#tail = Buffer.alloc(0);
      }
      start = newline + 1;
    }
    return events;
  }

  /** Bytes of the line not yet terminated (0 while a line too long is skipped). */
  get pendingBytes(): number {
    return this.#size;
  }

  clear(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#skipped = -1;
    this.#tail = Buffer.alloc(0);
  }

  #join(piece: Buffer): Buffer {
    const line =
      this.#size === 0 ? piece : Buffer.concat([...this.#chunks, piece], this.#size + piece.length);
    this.#chunks = [];
    this.#size = 0;
    return line;
  }

  /** The first HEAD_BYTES of the held chunks plus `piece`, copied without joining the rest. */
  #head(piece: Buffer): Buffer {
    const parts: Buffer[] = [];
    let size = 0;
    for (const part of [...this.#chunks, piece]) {
      if (size >= HEAD_BYTES) break;
      const take = part.subarray(0, HEAD_BYTES - size);
      parts.push(take);
      size += take.length;
    }
    return Buffer.concat(parts, size);
  }

  #skip(piece: Buffer): void {
    this.#skipped += piece.length;
    // Copied, so a dropped 64 KiB chunk is not kept alive by the few bytes remembered from it.
    this.#tail =
      piece.length >= TAIL_BYTES
        ? Buffer.from(piece.subarray(piece.length - TAIL_BYTES))
        : Buffer.concat([this.#tail, piece]).subarray(-TAIL_BYTES);
  }
}

export type JsonRpcId = string | number;

export interface LineHead {
  /** The message's `id`, when it comes before anything too long to skip over. */
  id?: JsonRpcId;
  /** A `method` key: a request or notification of the server, not an answer to the host. */
  method: boolean;
  /** The line starts like a JSON object (otherwise it is not JSON-RPC at all). */
  object: boolean;
}

/**
 * What the first bytes of a JSON-RPC line tell: the top-level keys are read in order, values
 * skipped, until the bytes run out (at a value too long for the head, such as `result`).
 */
export function readLineHead(head: Buffer): LineHead {
  const text = head.toString('utf8');
  const out: LineHead = { method: false, object: false };
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return out;
  out.object = true;
  i = skipSpace(text, i + 1);
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) break;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') break;
    i = skipSpace(text, i + 1);
    const valueEnd = jsonValueEnd(text, i);
    if (valueEnd < 0) break;
    if (key === 'method') out.method = true;
    if (key === 'id') {
      const id = parseId(text.slice(i, valueEnd));
      if (id !== undefined) out.id = id;
    }
    i = skipSpace(text, valueEnd);
    if (text[i] !== ',') break;
    i = skipSpace(text, i + 1);
  }
  return out;
}

const TAIL_ID = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

/**
 * The `id` of a JSON-RPC line from its last bytes, when it is the last key of the message
 * (`…,"jsonrpc":"2.0","id":7}`): a key followed by the one closing brace belongs to the top level.
 */
export function readLineTailId(tail: Buffer): JsonRpcId | undefined {
  const match = TAIL_ID.exec(tail.toString('utf8'));
  return match?.[1] === undefined ? undefined : parseId(match[1]);
}

/**
 * Whether objects and arrays nest deeper than `maxDepth` anywhere in the JSON text `line`,
 * counted on the bytes (strings skipped), so nothing deeper is ever parsed into objects that
 * recursive readers would then have to walk.
 */
export function jsonDeeperThan(line: Buffer, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i];
    if (byte === 0x22) {
      // Jump to the closing quote (native search: strings are most of a big result): the first
      // '"' not escaped, i.e. preceded by an even number of '\'.
      for (;;) {
        i = line.indexOf(0x22, i + 1);
        if (i === -1) return false;
        let backslash = i - 1;
        while (line[backslash] === 0x5c) backslash--;
        if ((i - 1 - backslash) % 2 === 0) break;
      }
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

function parseId(json: string): JsonRpcId | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  return i;
}

/** Index after the string starting at `i` (a '"'), or -1 if it does not end in `text`. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return -1;
}

/** Index after the JSON value starting at `i`, or -1 if it does not end in `text`. */
function jsonValueEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] !== '{' && text[i] !== '[') {
    let j = i;
    while (j < text.length && !',}] \t\r\n'.includes(text[j] as string)) j++;
    return j < text.length && j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j) - 1;
      if (j < 0) return -1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}
