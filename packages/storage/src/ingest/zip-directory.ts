// Just enough of the zip format to open one entry of an archive in place: the end-of-central-
// directory record (and its ZIP64 form) at the end, the central directory it points to, and an
// entry's local header. Reads go through the byte source, so a multi-GiB workbook costs the
// directory plus the one entry prefix we inflate. Checked against Python's zipfile on archives
// from real writers (test/fixtures/ingest-corpus).

import { promisify } from 'node:util';
import { constants, inflateRaw } from 'node:zlib';
import type { ByteSource } from './byte-source.js';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; others are not read. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** Central directories larger than this are not read (about 40,000 entries of typical names). */
const MAX_ZIP_DIRECTORY_BYTES = 2 * 1024 * 1024;

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

// The async form inflates on the libuv thread pool a chunk at a time, so a bomb's megabytes do
// not stall the event loop; maxOutputLength fails it the same way the sync form does.
const inflateRawAsync = promisify(inflateRaw);

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

interface DirectoryLocation {
  offset: number;
  size: number;
  /**
   * Bytes before the archive proper when something was prepended without fixing the offsets
   * (`cat stub.exe archive.zip`, a self-extractor): where the records end minus where they say
   * they end. Zero for ordinary archives.
   */
  prefix: number;
}

async function locateDirectory(src: ByteSource): Promise<DirectoryLocation | null> {
  const tailLength = Math.min(src.size, EOCD_SIZE + MAX_COMMENT);
  const tailStart = src.size - tailLength;
  const tail = await src.read(tailStart, tailLength);
  const view = viewOf(tail);
  // The record is followed only by its comment, so search backwards from the last place it fits.
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (view.getUint32(i, true) !== EOCD) continue;
    const size = view.getUint32(i + 12, true);
    const offset = view.getUint32(i + 16, true);
    if (size === 0xffffffff || offset === 0xffffffff) return locateZip64(src, tailStart + i);
    return { offset, size, prefix: Math.max(0, tailStart + i - size - offset) };
  }
  return null;
}

async function locateZip64(src: ByteSource, eocdAt: number): Promise<DirectoryLocation | null> {
  if (eocdAt < 20) return null;
  const locator = viewOf(await src.read(eocdAt - 20, 20));
  if (locator.byteLength < 20 || locator.getUint32(0, true) !== ZIP64_LOCATOR) return null;
  const recordAt = Number(locator.getBigUint64(8, true));
  // A prepended stub moves the record too; it normally sits right before its locator.
  let record = viewOf(await src.read(recordAt, 56));
  let prefix = 0;
  if (record.byteLength < 56 || record.getUint32(0, true) !== ZIP64_EOCD) {
    prefix = eocdAt - 20 - 56 - recordAt;
    if (prefix <= 0) return null;
    record = viewOf(await src.read(recordAt + prefix, 56));
    if (record.byteLength < 56 || record.getUint32(0, true) !== ZIP64_EOCD) return null;
  }
  return {
    size: Number(record.getBigUint64(40, true)),
    offset: Number(record.getBigUint64(48, true)),
    prefix,
  };
}

/** Where the directory really starts: as stated, or shifted by a prepended stub. */
async function directoryStart(src: ByteSource, location: DirectoryLocation): Promise<number | null> {
  const at = async (offset: number) => {
    const bytes = await src.read(offset, 4);
    return bytes.length === 4 && viewOf(bytes).getUint32(0, true) === CENTRAL_ENTRY;
  };
  // An empty archive has no entry to look for.
  if (location.size === 0 || (await at(location.offset))) return location.offset;
  return location.prefix > 0 && (await at(location.offset + location.prefix))
    ? location.offset + location.prefix
    : null;
}

// IBM code page 437, bytes 0x80–0xFF: what a name means when its UTF-8 flag is not set.
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';
const UTF8_FLAG = 0x800;

function decodeName(bytes: Uint8Array, flags: number, utf8: InstanceType<typeof TextDecoder>): string {
  if (flags & UTF8_FLAG || bytes.every((b) => b < 0x80)) return utf8.decode(bytes);
  let name = '';
  for (const b of bytes) name += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
  return name;
}

// ZIP64 extended information (header id 1) holds, in this order, whichever of the sizes and the
// offset were too large for their 32-bit fields (stored there as 0xFFFFFFFF).
function applyZip64Extra(entry: ZipEntry, extra: DataView): void {
  for (let at = 0; at + 4 <= extra.byteLength; ) {
    const id = extra.getUint16(at, true);
    const length = extra.getUint16(at + 2, true);
    if (id === 1) {
      let field = at + 4;
      const next = (): number => {
        if (field + 8 > at + 4 + length) throw new RangeError('short zip64 extra field');
        const value = Number(extra.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
      return;
    }
    at += 4 + length;
  }
}

/** Every entry of the archive's central directory, or null when it is not a readable zip. */
export async function readZipDirectory(src: ByteSource): Promise<ZipEntry[] | null> {
  const location = await locateDirectory(src);
  if (!location || location.size > MAX_ZIP_DIRECTORY_BYTES) return null;
  const start = await directoryStart(src, location);
  if (start === null || start + location.size > src.size) return null;
  // Entries' local header offsets are off by the same amount as the directory's.
  const shift = start - location.offset;
  const directory = await src.read(start, location.size);
  const view = viewOf(directory);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  for (let at = 0; at + 46 <= directory.length; ) {
    if (view.getUint32(at, true) !== CENTRAL_ENTRY) break;
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength > directory.length) break;
    const entry: ZipEntry = {
      name: decodeName(directory.subarray(at + 46, nameEnd), view.getUint16(at + 8, true), decoder),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    };
    applyZip64Extra(entry, viewOf(directory.subarray(nameEnd, nameEnd + extraLength)));
    entry.localHeaderOffset += shift;
    entries.push(entry);
    at = nameEnd + extraLength + commentLength;
  }
  return entries;
}

export interface ReadEntryOptions {
  /** Compressed bytes to read at most; less than the entry means inflating only its start. */
  maxInput: number;
  /** Inflated bytes at most; past it the read fails (a zip bomb is not "cheap"). */
  maxOutput: number;
}

/** The entry's content, or its first part when `maxInput` cuts it short. */
export async function readZipEntry(
  src: ByteSource,
  entry: ZipEntry,
  options: ReadEntryOptions,
): Promise<Uint8Array | null> {
  const local = viewOf(await src.read(entry.localHeaderOffset, 30));
  if (local.byteLength < 30 || local.getUint32(0, true) !== LOCAL_ENTRY) return null;
  // The local header's own name and extra lengths may differ from the central directory's.
  const dataAt = entry.localHeaderOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
  const inputLength = Math.min(entry.compressedSize, options.maxInput);
  const data = await src.read(dataAt, inputLength);
  if (data.length < inputLength) return null;
  if (entry.method === 0) return data.subarray(0, Math.min(data.length, options.maxOutput));
  if (entry.method !== 8) return null;
  // SYNC_FLUSH instead of FINISH lets zlib return what a cut-off stream decodes to, without
  // an "unexpected end of file" error.
  return inflateRawAsync(data, {
    finishFlush: constants.Z_SYNC_FLUSH,
    maxOutputLength: options.maxOutput,
  });
}
