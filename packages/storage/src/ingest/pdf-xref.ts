// Opens a PDF the way a viewer does, minus everything but lookups: from `startxref` it reads the
// cross-reference sections (classic tables, compressed xref streams and hybrids, following /Prev
// through incremental updates), then resolves objects by number, including objects packed in
// object streams (decrypted when the file is encrypted for anyone to open). Each read is a
// bounded window through the byte source.

import { type ByteSource, latin1 } from './byte-source.js';
import { type StreamDecryptor, streamDecryptor, stringBytes } from './pdf-crypt.js';
import { decodeStream } from './pdf-stream.js';
import {
  dictOf,
  type IndirectObject,
  intOf,
  PdfLexer,
  PdfTruncatedError,
  type PdfValue,
  parseIndirectObject,
  refOf,
} from './pdf-syntax.js';

/** Window sizes tried in turn for one object or xref section. */
const WINDOWS = [16 * 1024, 256 * 1024, 2 * 1024 * 1024];
/** Incremental updates followed at most. */
const MAX_SECTIONS = 32;
const MAX_REF_HOPS = 8;

type Dict = Map<string, PdfValue>;
type XrefEntry = { type: 0 } | { type: 1; offset: number } | { type: 2; stream: number; index: number };

interface Section {
  lookup(num: number): XrefEntry | undefined;
  trailer: Dict;
}

interface Window {
  start: number;
  bytes: Uint8Array;
  text: string;
}

export interface PdfDocument {
  /** The newest trailer (or xref stream dictionary). */
  trailer: Dict;
  /** Follows references to the object they name; undefined for missing or unreadable ones. */
  resolve(value: PdfValue | undefined): Promise<PdfValue | undefined>;
}

/** Runs `parse` on growing windows from `offset` while it reports a truncated object. */
async function withWindow<T>(
  src: ByteSource,
  offset: number,
  parse: (window: Window) => T | Promise<T>,
): Promise<T> {
  for (const size of WINDOWS) {
    const bytes = await src.read(offset, size);
    const atEnd = offset + bytes.length >= src.size;
    // A trailing newline ends a token that ends the file, so it does not read as cut short.
    const text = atEnd ? `${latin1(bytes)}\n` : latin1(bytes);
    try {
      // Awaited here so a rejection (truncated, say) is caught below like a throw.
      return await parse({ start: offset, bytes, text });
    } catch (error) {
      if (!(error instanceof PdfTruncatedError) || atEnd) throw error;
    }
  }
  throw new PdfTruncatedError();
}

function parseTable(text: string, pos: number): Section {
  const entries = new Map<number, XrefEntry>();
  const lexer = new PdfLexer(text, pos);
  for (;;) {
    if (lexer.peekKeyword('trailer')) {
      lexer.pos += 'trailer'.length;
      const trailer = dictOf(lexer.value());
      if (!trailer) throw new SyntaxError('PDF trailer is not a dictionary');
      return { lookup: (num) => entries.get(num), trailer };
    }
    const first = lexer.integer();
    const count = lexer.integer();
    if (first === undefined || count === undefined) throw new SyntaxError('bad xref subsection');
    const row = /\s*(\d{1,10})\s+(\d{1,5})\s+([nf])/y;
    row.lastIndex = lexer.pos;
    for (let i = 0; i < count; i++) {
      const at = row.lastIndex;
      const match = row.exec(text);
      if (!match) {
        // (A failed sticky match resets lastIndex, hence `at`.)
        if (text.length - at < 64) throw new PdfTruncatedError();
        throw new SyntaxError('bad xref entry');
      }
      if (!entries.has(first + i)) {
        entries.set(first + i, match[3] === 'n' ? { type: 1, offset: Number(match[1]) } : { type: 0 });
      }
    }
    lexer.pos = row.lastIndex;
  }
}

// Entries stay in the decoded stream and are read on lookup: a document with millions of
// objects would otherwise cost a map of millions for the three objects a page count needs.
function xrefStreamLookup(dict: Dict, data: Uint8Array): (num: number) => XrefEntry | undefined {
  const widths = dict.get('W');
  const w = Array.isArray(widths) ? widths.map(intOf) : [];
  if (w.length !== 3 || w.some((n) => n === undefined || n > 8)) throw new SyntaxError('bad /W');
  const [w0, w1, w2] = w as [number, number, number];
  const rowWidth = w0 + w1 + w2;
  if (rowWidth === 0) throw new SyntaxError('bad /W');
  const index = dict.get('Index');
  const ranges = Array.isArray(index) ? index.map((n) => intOf(n) ?? 0) : [0, intOf(dict.get('Size')) ?? 0];
  const field = (at: number, width: number): number => {
    let n = 0;
    for (let i = 0; i < width; i++) n = n * 256 + (data[at + i] as number);
    return n;
  };
  return (num) => {
    let row = 0;
    for (let r = 0; r + 1 < ranges.length; r += 2) {
      const first = ranges[r] as number;
      const count = ranges[r + 1] as number;
      if (num >= first && num < first + count) {
        const at = (row + num - first) * rowWidth;
        if (at + rowWidth > data.length) return undefined;
        // A zero-width type field means every entry is type 1.
        const type = w0 === 0 ? 1 : field(at, w0);
        const a = field(at + w0, w1);
        const b = field(at + w0 + w1, w2);
        if (type === 1) return { type: 1, offset: a };
        if (type === 2) return { type: 2, stream: a, index: b };
        return type === 0 ? { type: 0 } : undefined;
      }
      row += count;
    }
    return undefined;
  };
}

function readSection(src: ByteSource, offset: number): Promise<Section> {
  return withWindow(src, offset, async (window) => {
    const lexer = new PdfLexer(window.text);
    if (lexer.peekKeyword('xref')) return parseTable(window.text, lexer.pos + 'xref'.length);
    const object = parseIndirectObject(window.text, 0);
    const dict = dictOf(object.value);
    const length = intOf(dict?.get('Length'));
    if (dict?.get('Type') !== 'XRef' || object.streamStart === undefined || length === undefined) {
      throw new SyntaxError('startxref does not point at an xref section');
    }
    if (object.streamStart + length > window.bytes.length) throw new PdfTruncatedError();
    const raw = window.bytes.subarray(object.streamStart, object.streamStart + length);
    return { lookup: xrefStreamLookup(dict, await decodeStream(dict, raw)), trailer: dict };
  });
}

async function readSections(src: ByteSource, startxref: number): Promise<Section[]> {
  const sections: Section[] = [];
  const seen = new Set<number>();
  let next: number | undefined = startxref;
  while (next !== undefined && !seen.has(next) && sections.length < MAX_SECTIONS) {
    seen.add(next);
    const section = await readSection(src, next);
    sections.push(section);
    // Hybrid files: a classic table whose trailer points at an xref stream for the objects a
    // pre-1.5 reader must not see; it ranks right after that table.
    const hybrid = intOf(section.trailer.get('XRefStm'));
    if (hybrid !== undefined && !seen.has(hybrid)) {
      seen.add(hybrid);
      sections.push(await readSection(src, hybrid));
    }
    next = intOf(section.trailer.get('Prev'));
  }
  return sections;
}

export async function openPdfDocument(src: ByteSource, startxref: number): Promise<PdfDocument> {
  const sections = await readSections(src, startxref);
  const trailer = sections[0]?.trailer ?? new Map();
  const objectStreams = new Map<number, Promise<{ dict: Dict; text: string }>>();

  function lookup(num: number): XrefEntry | undefined {
    for (const section of sections) {
      const entry = section.lookup(num);
      if (entry) return entry;
    }
    return undefined;
  }

  function readObjectAt(offset: number, num: number): Promise<IndirectObject & { start: number }> {
    return withWindow(src, offset, (window) => {
      const object = parseIndirectObject(window.text, 0);
      if (object.num !== num) throw new SyntaxError(`xref offset of object ${num} is wrong`);
      return { ...object, start: window.start };
    });
  }

  /** A value given directly or as a reference to a plain (not packed) object. */
  async function plainValue(value: PdfValue | undefined): Promise<PdfValue | undefined> {
    const ref = refOf(value);
    if (!ref) return value;
    const entry = lookup(ref.num);
    return entry?.type === 1 ? (await readObjectAt(entry.offset, ref.num)).value : undefined;
  }

  let decryptor: Promise<StreamDecryptor | null> | undefined;

  /** How object streams are decrypted: identity when not encrypted, null when we cannot. */
  function streamDecryption(): Promise<StreamDecryptor | null> {
    decryptor ??= (async () => {
      if (!trailer.has('Encrypt')) return (_num: number, _gen: number, data: Uint8Array) => data;
      // Only a plain object: one packed in an object stream would need itself to be read.
      const encrypt = dictOf(await plainValue(trailer.get('Encrypt')));
      const ids = trailer.get('ID');
      const firstId = stringBytes(Array.isArray(ids) ? ids[0] : undefined);
      return (encrypt && streamDecryptor(encrypt, firstId)) ?? null;
    })();
    return decryptor;
  }

  async function objectStream(num: number): Promise<{ dict: Dict; text: string }> {
    const entry = lookup(num);
    if (entry?.type !== 1) throw new SyntaxError('object stream is not a plain object');
    const object = await readObjectAt(entry.offset, num);
    const dict = dictOf(object.value);
    // The spec keeps an object stream's /Length out of object streams; insisting on that also
    // means a crafted file cannot make this stream wait on itself.
    const length = intOf(await plainValue(dict?.get('Length')));
    if (!dict || object.streamStart === undefined || length === undefined) {
      throw new SyntaxError('bad object stream');
    }
    const decrypt = await streamDecryption();
    if (!decrypt) throw new SyntaxError('encrypted object stream that cannot be opened without a password');
    const raw = decrypt(num, object.gen, await src.read(object.start + object.streamStart, length));
    return { dict, text: `${latin1(await decodeStream(dict, raw))}\n` };
  }

  async function fromObjectStream(stream: number, num: number): Promise<PdfValue> {
    let pending = objectStreams.get(stream);
    if (!pending) {
      pending = objectStream(stream);
      objectStreams.set(stream, pending);
    }
    const { dict, text } = await pending;
    const count = intOf(dict.get('N')) ?? 0;
    const first = intOf(dict.get('First')) ?? 0;
    const lexer = new PdfLexer(text);
    // The header is `num offset` pairs; offsets are relative to /First.
    for (let i = 0; i < count; i++) {
      const objectNum = lexer.integer();
      const offset = lexer.integer();
      if (objectNum === undefined || offset === undefined) break;
      if (objectNum === num) return new PdfLexer(text, first + offset).value();
    }
    throw new SyntaxError(`object ${num} is not in its object stream`);
  }

  async function resolveValue(value: PdfValue | undefined, hops: number): Promise<PdfValue | undefined> {
    const ref = refOf(value);
    if (!ref) return value;
    if (hops >= MAX_REF_HOPS) return undefined;
    const entry = lookup(ref.num);
    if (entry?.type === 1) return resolveValue((await readObjectAt(entry.offset, ref.num)).value, hops + 1);
    if (entry?.type === 2) return resolveValue(await fromObjectStream(entry.stream, ref.num), hops + 1);
    return undefined;
  }

  return { trailer, resolve: (value) => resolveValue(value, 0) };
}
