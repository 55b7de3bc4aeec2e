// An independent PNG reader for assertions: verifies the signature, chunk order and every chunk's
// CRC with node:zlib's crc32 (not the encoder's own), inflates IDAT and undoes all five filter
// types, so a test can look at real pixels.
import { crc32, inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** Chunk types in file order. */
  chunks: string[];
  pixel(x: number, y: number): number[];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(bytes: Buffer): DecodedPng {
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG signature');
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  let offset = 8;
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('ascii', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    const stored = bytes.readUInt32BE(offset + 8 + length);
    const computed = crc32(bytes.subarray(offset + 4, offset + 8 + length));
    if (stored !== computed) throw new Error(`bad CRC in ${type}: ${stored} != ${computed}`);
    chunks.push(type);
    if (type === 'IHDR') ihdr = body;
    if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
    if (type === 'IEND') break;
  }
  if (offset !== bytes.length) throw new Error('bytes after IEND');
  if (!ihdr || chunks[0] !== 'IHDR' || chunks.at(-1) !== 'IEND') throw new Error('bad chunk order');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitDepth = ihdr[8] as number;
  const colorType = ihdr[9] as number;
  if (bitDepth !== 8 || (colorType !== 6 && colorType !== 2)) throw new Error('only 8-bit RGB(A) is read');
  const channels = colorType === 6 ? 4 : 3;
  const stride = width * channels;
  const raw = inflateSync(Buffer.concat(idat));
  if (raw.length !== (stride + 1) * height) throw new Error(`IDAT holds ${raw.length} bytes`);
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] as number;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i] as number;
      const a = i >= channels ? (out[y * stride + i - channels] as number) : 0;
      const b = y > 0 ? (out[(y - 1) * stride + i] as number) : 0;
      const c = y > 0 && i >= channels ? (out[(y - 1) * stride + i - channels] as number) : 0;
      out[y * stride + i] = (x + predict(filter, a, b, c)) & 0xff;
    }
  }
  return {
    width,
    height,
    bitDepth,
    colorType,
    chunks,
    pixel: (x, y) => [...out.subarray(y * stride + x * channels, y * stride + (x + 1) * channels)],
  };
}

function predict(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return Math.floor((a + b) / 2);
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`unknown filter type ${filter}`);
  }
}
