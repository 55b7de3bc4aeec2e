import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, createImage, encodePng, fillRect } from '../../src/lib/png.js';
import { decodePng } from '../png-reader.js';

describe('encodePng', () => {
  it('computes the same CRC-32 as zlib', () => {
    for (const text of ['', 'IEND', 'The quick brown fox']) {
      expect(crc32(Buffer.from(text))).toBe(zlibCrc32(Buffer.from(text)));
    }
  });

  it('writes a PNG whose pixels decode back exactly', () => {
    const image = createImage(7, 5, [10, 20, 30]);
    fillRect(image, 2, 1, 5, 3, [200, 100, 0]);
    const png = decodePng(encodePng(image));
    expect([png.width, png.height, png.bitDepth, png.colorType]).toEqual([7, 5, 8, 6]);
    expect(png.chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < 7; x++) {
        const inside = x >= 2 && x < 5 && y >= 1 && y < 3;
        expect(png.pixel(x, y)).toEqual(inside ? [200, 100, 0, 255] : [10, 20, 30, 255]);
      }
    }
  });

  it('clips rectangles to the image and refuses inconsistent sizes', () => {
    const image = createImage(3, 3);
    fillRect(image, -5, -5, 10, 1, [0, 0, 0]);
    expect(decodePng(encodePng(image)).pixel(2, 0)).toEqual([0, 0, 0, 255]);
    expect(() => encodePng({ width: 2, height: 2, data: new Uint8Array(3) })).toThrow(RangeError);
    expect(() => encodePng({ width: 0, height: 2, data: new Uint8Array(0) })).toThrow(RangeError);
  });
});
