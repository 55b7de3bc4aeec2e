// The image formats whose size can sit far from the start: a JPEG's frame header (SOF) comes
// after its APP segments (EXIF thumbnails, ICC profiles, XMP: easily past 64 KiB), a TIFF's
// first IFD may be written after the pixel data, at the end of the file, and a GIF's first frame
// (which may be larger than the logical screen it claims) follows its color table and
// extensions. All are walked through the byte source, reading only the few bytes of each header
// on the way.

import type { ByteSource } from './byte-source.js';

export interface PixelSize {
  width: number;
  height: number;
}

/** Segments walked before giving up on a JPEG (real files have a few dozen at most). */
const MAX_JPEG_SEGMENTS = 512;

// Start-of-frame markers carry the size: C0–CF except C4 (DHT), C8 (JPG ext.) and CC (DAC).
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

// Markers that stand alone, without a length: TEM, RST0–7, SOI.
function isStandalone(marker: number): boolean {
  return marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);
}

export async function jpegSize(src: ByteSource): Promise<PixelSize | null> {
  let pos = 2;
  for (let step = 0; step < MAX_JPEG_SEGMENTS && pos + 4 <= src.size; step++) {
    const bytes = await src.read(pos, 9);
    if (bytes[0] !== 0xff || bytes.length < 2) return null;
    const marker = bytes[1] as number;
    // 0xFF may be repeated as fill before a marker.
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    if (isStandalone(marker)) {
      pos += 2;
      continue;
    }
    // Image data or the end came before any frame header; markers below C0 are reserved, so
    // meeting one means we are walking garbage.
    if (marker === 0xd9 || marker === 0xda || marker < 0xc0 || bytes.length < 4) return null;
    if (isStartOfFrame(marker)) {
      if (bytes.length < 9) return null;
      const height = ((bytes[5] as number) << 8) | (bytes[6] as number);
      const width = ((bytes[7] as number) << 8) | (bytes[8] as number);
      // Height 0 means "given later in a DNL segment", which is past the image data: not cheap.
      return width > 0 && height > 0 ? { width, height } : null;
    }
    const length = ((bytes[2] as number) << 8) | (bytes[3] as number);
    if (length < 2) return null;
    pos += 2 + length;
  }
  return null;
}

const TAG_IMAGE_WIDTH = 256;
const TAG_IMAGE_LENGTH = 257;
const MAX_IFD_ENTRIES = 4096;

interface TiffLayout {
  little: boolean;
  big: boolean;
  ifdOffset: number;
}

function tiffLayout(head: Uint8Array): TiffLayout | null {
  if (head.length < 16) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const order = view.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return null;
  const little = order === 0x4949;
  const version = view.getUint16(2, little);
  if (version === 42) return { little, big: false, ifdOffset: view.getUint32(4, little) };
  // BigTIFF: offset size 8, then a 64-bit offset to the first IFD.
  if (version === 43 && view.getUint16(4, little) === 8) {
    return { little, big: true, ifdOffset: Number(view.getBigUint64(8, little)) };
  }
  return null;
}

/** Width and height from the first IFD (the main image in ordinary TIFFs). */
export async function tiffSize(src: ByteSource): Promise<PixelSize | null> {
  const layout = tiffLayout(await src.read(0, 16));
  if (!layout) return null;
  const { little, big, ifdOffset } = layout;
  const countSize = big ? 8 : 2;
  const entrySize = big ? 20 : 12;
  const countBytes = await src.read(ifdOffset, countSize);
  if (countBytes.length < countSize) return null;
  const countView = new DataView(countBytes.buffer, countBytes.byteOffset, countSize);
  const count = big ? Number(countView.getBigUint64(0, little)) : countView.getUint16(0, little);
  if (count === 0 || count > MAX_IFD_ENTRIES) return null;
  const entries = await src.read(ifdOffset + countSize, count * entrySize);
  if (entries.length < count * entrySize) return null;
  const view = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  let width = 0;
  let height = 0;
  for (let i = 0; i < count; i++) {
    const at = i * entrySize;
    const tag = view.getUint16(at, little);
    if (tag !== TAG_IMAGE_WIDTH && tag !== TAG_IMAGE_LENGTH) continue;
    const type = view.getUint16(at + 2, little);
    const valueAt = at + (big ? 12 : 8);
    // The value sits left-justified in the entry's value field: SHORT (3), LONG (4), LONG8 (16).
    let value: number;
    if (type === 3) value = view.getUint16(valueAt, little);
    else if (type === 4) value = view.getUint32(valueAt, little);
    else if (type === 16 && big) value = Number(view.getBigUint64(valueAt, little));
    else return null;
    if (tag === TAG_IMAGE_WIDTH) width = value;
    else height = value;
  }
  return width > 0 && height > 0 ? { width, height } : null;
}

/** GIF blocks and sub-blocks walked before settling for the logical screen size. */
const MAX_GIF_BLOCKS = 16_384;

/** Start of the first image descriptor (0x2C) after the header, or null if not found cheaply. */
async function gifFirstFrame(src: ByteSource, flags: number): Promise<number | null> {
  // Header (6) and logical screen descriptor (7), then the global color table if flagged.
  let pos = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  for (let blocks = 0; blocks < MAX_GIF_BLOCKS && pos < src.size; blocks++) {
    const [introducer, label] = await src.read(pos, 2);
    if (introducer === 0x2c) return pos;
    // Anything but an extension (0x21) here is the trailer or garbage.
    if (introducer !== 0x21 || label === undefined) return null;
    pos += 2;
    // The extension's data sub-blocks, each led by its length, end with a zero length.
    for (; blocks < MAX_GIF_BLOCKS; blocks++) {
      const [length] = await src.read(pos, 1);
      if (length === undefined) return null;
      pos += 1 + length;
      if (length === 0) break;
    }
  }
  return null;
}

/**
 * The canvas a GIF is shown on: its logical screen, grown to hold the first frame when that frame
 * reaches past it (some encoders write a 0 × 0 or too small screen; browsers and Pillow grow it).
 */
export async function gifSize(src: ByteSource): Promise<PixelSize | null> {
  const header = await src.read(0, 13);
  if (header.length < 13) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  let width = view.getUint16(6, true);
  let height = view.getUint16(8, true);
  // Past the read budget (a huge comment or XMP extension first), the screen size is the answer.
  const frameAt = await gifFirstFrame(src, header[10] as number).catch(() => null);
  const frame =
    frameAt === null ? new Uint8Array(0) : await src.read(frameAt + 1, 8).catch(() => new Uint8Array(0));
  if (frame.length === 8) {
    const frameView = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    width = Math.max(width, frameView.getUint16(0, true) + frameView.getUint16(4, true));
    height = Math.max(height, frameView.getUint16(2, true) + frameView.getUint16(6, true));
  }
  return width > 0 && height > 0 ? { width, height } : null;
}
