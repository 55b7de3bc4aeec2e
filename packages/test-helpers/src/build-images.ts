// Image files built byte by byte. PNG, GIF, BMP and TIFF are complete, decodable images; WebP
// and JPEG carry real, well-formed headers (a JPEG's entropy-coded data is beyond a test's
// reach), which is all a size reader may look at.

import { crc32, deflateSync } from 'node:zlib';
import { ByteWriter } from './byte-writer.js';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A grayscale PNG, every scanline filter 0 over a gradient. */
export function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit, grayscale, deflate, adaptive filtering, no interlace
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = (x + y) & 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF89a canvas of the given size holding a 1×1 frame (valid: frames may be smaller). */
export function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen.set([0x80, 0, 0], 4); // global colour table of 2 entries
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    screen,
    Buffer.from([0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]), // image descriptor: 1×1 at 0,0
    Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]), // LZW data of one pixel
    Buffer.from([0x3b]),
  ]);
}

/** A 24-bit BMP; top-down (negative height in the header) when asked. */
export function bmp(width: number, height: number, topDown = false): Buffer {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + stride * height, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(width, 18);
  header.writeInt32LE(topDown ? -height : height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  return Buffer.concat([header, Buffer.alloc(stride * height, 0x80)]);
}

/** WebP with a VP8X (extended) header, as written for alpha or animation. */
export function webpExtended(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const body = Buffer.concat([Buffer.from('WEBPVP8X', 'latin1'), Buffer.from([10, 0, 0, 0]), vp8x]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]);
}

/** Lossless WebP (VP8L): signature 0x2f, then 14-bit width-1 and height-1. */
export function webpLossless(width: number, height: number): Buffer {
  const bits = (width - 1) | ((height - 1) << 14);
  const header = Buffer.alloc(5);
  header[0] = 0x2f;
  header.writeUInt32LE(bits >>> 0, 1);
  const chunkSize = Buffer.alloc(4);
  chunkSize.writeUInt32LE(header.length);
  const body = Buffer.concat([Buffer.from('WEBPVP8L', 'latin1'), chunkSize, header, Buffer.alloc(1)]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]);
}

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/**
 * A JPEG: JFIF, `appBytes` of APP1/APP2 segments (EXIF, ICC chunks: what pushes the frame header
 * past the head in camera files), a quantization table, the frame header (SOF `sof`), SOS, EOI.
 */
export function jpeg(
  width: number,
  height: number,
  options: { appBytes?: number; sof?: number } = {},
): Buffer {
  const parts = [
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
  ];
  for (let left = options.appBytes ?? 0, n = 0; left > 0; n++) {
    const size = Math.min(left, 65000);
    const tag = n === 0 ? 'Exif\0\0' : 'ICC_PROFILE\0';
    parts.push(
      segment(n === 0 ? 0xe1 : 0xe2, Buffer.concat([Buffer.from(tag, 'latin1'), Buffer.alloc(size)])),
    );
    left -= size;
  }
  parts.push(segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])));
  const frame = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  frame.writeUInt16BE(height, 1);
  frame.writeUInt16BE(width, 3);
  parts.push(segment(options.sof ?? 0xc0, frame));
  parts.push(segment(0xda, Buffer.from([3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3f, 0])));
  parts.push(Buffer.from([0x12, 0x34, 0x56, 0xff, 0x00, 0x78, 0xff, 0xd9]));
  return Buffer.concat(parts);
}

/**
 * An 8-bit grayscale TIFF in one strip, its IFD after the pixel data as libtiff writes it. With
 * `gap` the strip is that many bytes of gap, so the size sits far past the head.
 */
export function tiff(
  width: number,
  height: number,
  options: { bigEndian?: boolean; gap?: number } = {},
): ByteWriter {
  const le = !options.bigEndian;
  const w16 = (b: Buffer, v: number, at: number) => (le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const w32 = (b: Buffer, v: number, at: number) => (le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  const stripLength = options.gap ?? width * height;
  const ifdAt = 8 + stripLength;
  const header = Buffer.alloc(8);
  header.write(le ? 'II' : 'MM', 0, 'latin1');
  w16(header, 42, 2);
  w32(header, ifdAt, 4);
  // ImageWidth (LONG), ImageLength (SHORT), BitsPerSample, Compression, Photometric,
  // StripOffsets, RowsPerStrip, StripByteCounts: tags in ascending order as required.
  const entries: [number, number, number][] = [
    [256, 4, width],
    [257, 3, height],
    [258, 3, 8],
    [259, 3, 1],
    [262, 3, 1],
    [273, 4, 8],
    [278, 4, height],
    [279, 4, stripLength],
  ];
  const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
  w16(ifd, entries.length, 0);
  entries.forEach(([tag, type, value], i) => {
    const at = 2 + i * 12;
    w16(ifd, tag, at);
    w16(ifd, type, at + 2);
    w32(ifd, 1, at + 4);
    if (type === 3) w16(ifd, value, at + 8);
    else w32(ifd, value, at + 8);
  });
  const writer = new ByteWriter().write(header);
  if (options.gap) writer.gap(stripLength);
  else writer.write(Buffer.alloc(stripLength, 0x7f));
  return writer.write(ifd);
}

export function svg(attributes: string): Buffer {
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" ${attributes}><rect x="0" y="0" width="10" height="10"/></svg>\n`,
  );
}
