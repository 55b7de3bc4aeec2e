// RFC 2397 data URIs, the wire form of SEP-2356 file inputs: `data:[<mediatype>][;base64],<data>`
// (SEP-2356 §Wire encoding). Pure TypeScript (no Buffer, no `node:`) so the web app shares it.
//
// `name=`: earlier SEP-2356 drafts carried the file name as a percent-encoded `name=` media-type
// parameter placed before `;base64`; the current text dropped it (§Why not carry the filename in
// the URI?) and has servers declare a separate filename argument. Ferry still reads `name=` (it is
// a well-formed RFC 2397 parameter, and servers MUST accept well-formed data URIs) and writes it
// only when a caller passes `name`. The host leaves it out of x-mcp-file values unless a server is
// configured for the earlier draft (`xMcpFileNameParam`), and fills the server's paired filename
// argument instead (mcp-file-name.ts).

import { base64EncodedLength, checkBase64, decodeBase64, encodeBase64 } from './base64.js';

/** RFC 2045 `token`: any ASCII printable except SPACE and tspecials `()<>@,;:\"/[]?=`. */
const TOKEN = /^[!#$%&'*+\-.^_`{|}~0-9A-Za-z]+$/;
/** RFC 3986 unreserved characters; every other byte is percent-encoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = '0123456789ABCDEF';
/** SEP-2356 §Wire encoding: "If the platform does not report a type, the client MUST use application/octet-stream". */
const FALLBACK_MIME = 'application/octet-stream';

export interface DataUriPrefixOptions {
  /** Media type, optionally with parameters (`text/csv;charset=utf-8`); '' means application/octet-stream. */
  mime: string;
  /** Original file name, written as a percent-encoded `name=` parameter before `;base64`. */
  name?: string;
}

export interface EncodeDataUriOptions extends DataUriPrefixOptions {
  /** File bytes, or text (encoded as UTF-8; say so with `;charset=utf-8` in `mime` if it matters). */
  data: Uint8Array | string;
  /** Use `;base64`. Defaults to true for bytes and false for text (SEP: SHOULD base64 binary content). */
  base64?: boolean;
}

export interface DataUriLengthOptions extends DataUriPrefixOptions {
  /** Decoded size of the file in bytes. */
  byteLength: number;
}

export interface ParsedDataUri {
  /** Lower-cased `type/subtype` without parameters; `text/plain` when the media type is omitted. */
  mime: string;
  /** Parameters with lower-cased names and percent-decoded values; `;base64` is not one of them. */
  params: Record<string, string>;
  /** `params.name`, if present. */
  name?: string;
  base64: boolean;
  /** Decoded size, known without decoding base64. */
  byteLength: number;
  /** Decodes the payload; each call returns a fresh array. */
  data(): Uint8Array;
}

export type DataUriParseResult = { ok: true; value: ParsedDataUri } | { ok: false; reason: string };

/** Builds a data URI. Throws TypeError on a malformed `mime` (programmer error). */
export function encodeDataUri(options: EncodeDataUriOptions): string {
  const text = typeof options.data === 'string';
  const bytes = typeof options.data === 'string' ? new TextEncoder().encode(options.data) : options.data;
  const head = `data:${mediaType(options)}`;
  return (options.base64 ?? !text)
    ? `${head};base64,${encodeBase64(bytes)}`
    : `${head},${percentEncode(bytes)}`;
}

/**
 * `data:<mediatype>[;name=…];base64,`: a host can send this followed by base64 chunks without holding
 * the file (each chunk but the last must encode a multiple of 3 bytes so no padding lands mid-way).
 */
export function dataUriPrefix(options: DataUriPrefixOptions): string {
  return `data:${mediaType(options)};base64,`;
}

/** Exact length of the base64 data URI for a file of `byteLength` bytes, without encoding it. */
export function dataUriLength(options: DataUriLengthOptions): number {
  const { byteLength } = options;
  if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
    throw new RangeError(`dataUriLength: byteLength must be a non-negative integer, got ${byteLength}`);
  }
  return dataUriPrefix(options).length + base64EncodedLength(byteLength);
}

/** Parses and validates a data URI; never throws. Invalid input yields a reason naming the fault. */
export function parseDataUri(text: unknown): DataUriParseResult {
  if (typeof text !== 'string') return fail(`expected a string, got ${text === null ? 'null' : typeof text}`);
  if (text.length === 0) return fail('empty string');
  if (!/^data:/i.test(text)) return fail("does not start with 'data:'");
  // RFC 2397: the data starts after the first ','. A comma inside a parameter must be written %2C.
  const comma = text.indexOf(',');
  if (comma === -1) return fail("no ',' between the media type and the data");
  const segments = splitSegments(text.slice(5, comma));
  if (typeof segments === 'string') return fail(segments);
  const last = segments.length > 1 ? segments[segments.length - 1] : undefined;
  const base64 = last !== undefined && last.trim().toLowerCase() === 'base64';
  if (base64) segments.pop();
  const type = (segments.shift() ?? '').trim().toLowerCase();
  if (type !== '' && !isTypeSubtype(type))
    return fail(`media type ${JSON.stringify(type)} is not type/subtype`);
  const params = parseParams(segments);
  if (typeof params === 'string') return fail(params);
  // RFC 2397 §2: an omitted media type defaults to text/plain;charset=US-ASCII; "text/plain can be
  // omitted but the charset parameter supplied".
  if (type === '' && params.charset === undefined) params.charset = 'US-ASCII';
  const payload = decodePayload(base64, text.slice(comma + 1));
  if (typeof payload === 'string') return fail(payload);
  const value: ParsedDataUri = { mime: type || 'text/plain', params, base64, ...payload };
  if (params.name !== undefined) value.name = params.name;
  return { ok: true, value };
}

/**
 * Log-safe form of a data URI (SEP-2356 §Logging and telemetry: file bytes MUST be redacted, e.g.
 * `data:<type>;base64,[<n> bytes]`). The name is dropped too: it is user data. Other strings pass.
 */
export function redactDataUri(text: string): string {
  if (!/^data:/i.test(text)) return text;
  const parsed = parseDataUri(text);
  if (!parsed.ok) return `data:[malformed, ${text.length} chars]`;
  const { mime, base64, byteLength } = parsed.value;
  return `data:${mime}${base64 ? ';base64' : ''},[${byteLength} bytes]`;
}

function fail(reason: string): DataUriParseResult {
  return { ok: false, reason };
}

function decodePayload(base64: boolean, body: string): Pick<ParsedDataUri, 'byteLength' | 'data'> | string {
  if (!base64 || body.includes('%')) {
    // Percent-escapes are legal in any URI, so `%2B` / `%3D` must decode before the base64 check.
    const bytes = percentDecode(body);
    if (typeof bytes === 'string') return `data: ${bytes}`;
    if (!base64) return { byteLength: bytes.length, data: () => bytes.slice() };
    body = '';
    for (let i = 0; i < bytes.length; i += 8192) body += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  const check = checkBase64(body);
  if (!check.valid) return `invalid base64 data: ${check.reason}`;
  return { byteLength: check.byteLength, data: () => decodeBase64(check.clean) };
}

function isTypeSubtype(value: string): boolean {
  const slash = value.indexOf('/');
  return slash > 0 && TOKEN.test(value.slice(0, slash)) && TOKEN.test(value.slice(slash + 1));
}

/** Splits on ';' outside RFC 2045 quoted strings; returns a reason string on an open quote. */
function splitSegments(header: string): string[] | string {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ';') {
      out.push(header.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) return 'unterminated quoted parameter value';
  out.push(header.slice(start));
  return out;
}

/** `attribute=value` segments (RFC 2397 via RFC 2045: value is token or quoted-string, URL-escaped). */
function parseParams(segments: string[]): Record<string, string> | string {
  const entries: [string, string][] = [];
  for (const segment of segments) {
    if (segment.trim().toLowerCase() === 'base64')
      return "';base64' must be the last parameter, right before ','";
    const eq = segment.indexOf('=');
    if (eq === -1) return `parameter ${JSON.stringify(segment)} has no '='`;
    const attribute = decodeText(segment.slice(0, eq).trim());
    if (typeof attribute !== 'string')
      return `parameter name ${JSON.stringify(segment.slice(0, eq))}: ${attribute.error}`;
    if (!TOKEN.test(attribute)) return `parameter name ${JSON.stringify(attribute)} is not a token`;
    const name = attribute.toLowerCase();
    let raw = segment.slice(eq + 1).trim();
    if (raw.startsWith('"')) {
      if (raw.length < 2 || !raw.endsWith('"')) return `parameter ${name}: text after the closing quote`;
      raw = raw.slice(1, -1).replace(/\\(.)/g, '$1');
    }
    const value = decodeText(raw);
    if (typeof value !== 'string') return `parameter ${name}: ${value.error}`;
    if (entries.some(([existing]) => existing === name)) return `duplicate parameter ${JSON.stringify(name)}`;
    entries.push([name, value]);
  }
  // fromEntries defines own properties, so a parameter called `__proto__` cannot reach the prototype.
  return Object.fromEntries(entries);
}

function decodeText(text: string): string | { error: string } {
  const bytes = percentDecode(text);
  if (typeof bytes === 'string') return { error: bytes };
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'not UTF-8 after percent-decoding' };
  }
}

/** Percent-decodes to bytes (literal non-ASCII characters become their UTF-8 bytes); reason on bad escapes. */
function percentDecode(text: string): Uint8Array | string {
  const input = new TextEncoder().encode(text);
  const out = new Uint8Array(input.length);
  let o = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] as number;
    if (byte !== 0x25) {
      out[o++] = byte;
      continue;
    }
    const hex = String.fromCharCode(input[i + 1] ?? 0, input[i + 2] ?? 0);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return `invalid percent-escape at offset ${i}`;
    out[o++] = Number.parseInt(hex, 16);
    i += 2;
  }
  return out.slice(0, o);
}

/** Percent-encodes every byte outside RFC 3986 `unreserved`, so `;`, `,`, `=`, `'()*!` never appear raw. */
function percentEncode(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    parts.push(byte < 0x80 && UNRESERVED.test(c) ? c : `%${HEX[byte >> 4]}${HEX[byte & 15]}`);
  }
  return parts.join('');
}

/** `type/subtype[;param=value…][;name=…]`, validated; an explicit `name` replaces one inside `mime`. */
function mediaType({ mime, name }: DataUriPrefixOptions): string {
  const segments = splitSegments(mime.trim() === '' ? FALLBACK_MIME : mime);
  const type = typeof segments === 'string' ? '' : (segments.shift() ?? '').trim().toLowerCase();
  const params = typeof segments === 'string' ? segments : parseParams(segments);
  if (!isTypeSubtype(type) || typeof params === 'string') {
    throw new TypeError(`encodeDataUri: invalid media type ${JSON.stringify(mime)}`);
  }
  if (name !== undefined && name !== '') params.name = name;
  const encode = (value: string) => percentEncode(new TextEncoder().encode(value));
  return (
    type +
    Object.entries(params)
      .map(([key, value]) => `;${key}=${encode(value)}`)
      .join('')
  );
}
