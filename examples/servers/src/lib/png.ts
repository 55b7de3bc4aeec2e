// A minimal PNG encoder (ISO/IEC 15948): 8-bit RGBA, filter type 0 on every scanline, one IDAT
// chunk compressed with zlib. Enough for charts and test images without a canvas library.
import { deflateSync } from 'node:zlib';

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row, top to bottom. */
  data: Uint8Array;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const COLOR_TYPE_RGBA = 6;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, the one PNG chunks carry). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function createImage(
  width: number,
  height: number,
  rgb: readonly number[] = [255, 255, 255],
): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0, 255], i);
  return { width, height, data };
}

/** Fills the rectangle [x0, x1) × [y0, y1), clipped to the image. */
export function fillRect(
  image: RgbaImage,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  rgb: readonly number[],
): void {
  const left = Math.max(0, Math.floor(Math.min(x0, x1)));
  const right = Math.min(image.width, Math.ceil(Math.max(x0, x1)));
  const top = Math.max(0, Math.floor(Math.min(y0, y1)));
  const bottom = Math.min(image.height, Math.ceil(Math.max(y0, y1)));
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      image.data.set([rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0, 255], (y * image.width + x) * 4);
    }
  }
}

export function encodePng(image: RgbaImage): Buffer {
  const { width, height, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`encodePng: bad size ${width}×${height}`);
  }
  if (data.length !== width * height * 4)
    throw new RangeError('encodePng: data is not width × height × 4 bytes');
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = COLOR_TYPE_RGBA;
  // 10..12: compression 0 (deflate), filter method 0, no interlace.
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    // Byte 0 of each scanline is its filter type; 0 (None) keeps the encoder trivial.
    raw.set(data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, body: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'ascii');
  out.set(body, 8);
  // The CRC covers the type and the data, not the length.
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}
