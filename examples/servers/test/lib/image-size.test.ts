import { describe, expect, it } from 'vitest';
import { imageSize } from '../../src/lib/image-size.js';
import { createImage, encodePng } from '../../src/lib/png.js';

describe('imageSize', () => {
  it('reads a PNG IHDR', () => {
    expect(imageSize(encodePng(createImage(300, 2)))).toEqual({ format: 'png', width: 300, height: 2 });
  });

  it('reads the SOF of a JPEG after other segments', () => {
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe1, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc2, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20,
    ]);
    expect(imageSize(jpeg)).toEqual({ format: 'jpeg', width: 32, height: 16 });
  });

  it('gives up on anything else', () => {
    expect(imageSize(Buffer.from('GIF89a....'))).toBeUndefined();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02]))).toBeUndefined();
    expect(imageSize(new Uint8Array(0))).toBeUndefined();
  });
});
