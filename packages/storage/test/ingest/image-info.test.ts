import { bmp, gif, jpeg, png, svg, tiff, webpExtended, webpLossless } from '@ferry/test-helpers/build-images';
import { describe, expect, it } from 'vitest';
import { GIB, infoOf, KIB } from './harness.js';

describe('extractInfo: images', () => {
  it.each([
    ['PNG', 'image/png', png(640, 480), 640, 480],
    ['GIF', 'image/gif', gif(320, 200), 320, 200],
    ['BMP bottom-up', 'image/bmp', bmp(33, 17), 33, 17],
    ['BMP top-down', 'image/bmp', bmp(33, 17, true), 33, 17],
    ['WebP VP8X', 'image/webp', webpExtended(4000, 3000), 4000, 3000],
    ['WebP lossless', 'image/webp', webpLossless(1234, 567), 1234, 567],
    ['JPEG baseline', 'image/jpeg', jpeg(1920, 1080), 1920, 1080],
    ['JPEG progressive', 'image/jpeg', jpeg(800, 600, { sof: 0xc2 }), 800, 600],
    ['JPEG lossless (SOF3)', 'image/jpeg', jpeg(300, 200, { sof: 0xc3 }), 300, 200],
    ['TIFF little-endian', 'image/tiff', tiff(64, 48).toBuffer(), 64, 48],
    ['TIFF big-endian', 'image/tiff', tiff(70, 5, { bigEndian: true }).toBuffer(), 70, 5],
    ['SVG width/height', 'image/svg+xml', svg('width="640" height="480"'), 640, 480],
    ['SVG viewBox only', 'image/svg+xml', svg('viewBox="0 0 320 200"'), 320, 200],
  ])('%s', async (_label, mime, bytes, width, height) => {
    const run = await infoOf(bytes, { mime, name: 'picture' });
    expect(run.info).toEqual({ width, height });
    expect(run.reads).toBe(0);
  });

  it('finds the type by magic bytes when the MIME type is generic and the name says nothing', async () => {
    expect((await infoOf(png(7, 9), { name: 'upload.bin' })).info).toEqual({ width: 7, height: 9 });
    expect((await infoOf(svg('width="5" height="6"'), { name: 'logo.svg' })).info).toEqual({
      width: 5,
      height: 6,
    });
  });

  it('reads a JPEG frame header that sits past the 64 KiB head (large EXIF/ICC segments)', async () => {
    const bytes = jpeg(6000, 4000, { appBytes: 300 * KIB });
    const run = await infoOf(bytes, { mime: 'image/jpeg' });
    expect(run.info).toEqual({ width: 6000, height: 4000 });
    // Segment headers only, not the segments.
    expect(run.reads).toBeGreaterThan(0);
    expect(run.bytesRead).toBeLessThan(64 * KIB);
  });

  it('grows a GIF logical screen that is smaller than its first frame, as browsers and Pillow do', async () => {
    const bytes = gif(1, 1);
    // First frame 1×1 at (40, 30): the canvas must reach 41 × 31 whatever the screen says.
    bytes.set([0x2c, 40, 0, 30, 0], bytes.indexOf(0x2c));
    for (const [screenWidth, screenHeight] of [
      [0, 0],
      [10, 10],
      [50, 20],
    ] as const) {
      bytes.writeUInt16LE(screenWidth, 6);
      bytes.writeUInt16LE(screenHeight, 8);
      const run = await infoOf(bytes, { mime: 'image/gif' });
      expect(run.info, `${screenWidth}x${screenHeight}`).toEqual({
        width: Math.max(screenWidth, 41),
        height: Math.max(screenHeight, 31),
      });
    }
  });

  it('keeps the GIF screen size when the first frame is past long extensions and the read budget', async () => {
    // 3 MiB of comment sub-blocks before the frame: the walk gives up, the screen still counts.
    const block = Buffer.concat([Buffer.from([0xff]), Buffer.alloc(0xff, 0x61)]);
    const comment = Buffer.concat([
      Buffer.from([0x21, 0xfe]),
      ...Array(12_000).fill(block),
      Buffer.from([0]),
    ]);
    const base = gif(320, 200);
    const at = base.indexOf(0x2c);
    const bytes = Buffer.concat([base.subarray(0, at), comment, base.subarray(at)]);
    const run = await infoOf(bytes, { mime: 'image/gif' });
    expect(run.info).toEqual({ width: 320, height: 200 });
    expect(run.bytesRead).toBeLessThanOrEqual(4 * 1024 * KIB);
  });

  it('reads a TIFF whose IFD comes after 3 GiB of pixel data with a few small reads', async () => {
    const run = await infoOf(tiff(50_000, 20_000, { gap: 3 * GIB }).toFile(), { mime: 'image/tiff' });
    expect(run.info).toEqual({ width: 50_000, height: 20_000 });
    expect(run.bytesRead).toBeLessThanOrEqual(8 * KIB);
  });

  it('gives null, never a throw, for truncated, corrupt or size-less images', async () => {
    const full = png(640, 480);
    const cases: [string, Uint8Array, string][] = [
      ['PNG cut inside IHDR', full.subarray(0, 20), 'image/png'],
      ['PNG signature only', full.subarray(0, 8), 'image/png'],
      [
        'PNG with another first chunk',
        Buffer.concat([full.subarray(0, 12), Buffer.from('IDAT')]),
        'image/png',
      ],
      ['PNG of width 0', png(1, 1).fill(0, 16, 20), 'image/png'],
      ['JPEG cut before its frame header', jpeg(10, 10, { appBytes: 1000 }).subarray(0, 600), 'image/jpeg'],
      [
        'JPEG with a bad segment length',
        Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0, 0]),
        'image/jpeg',
      ],
      [
        'JPEG with scan data before any frame',
        Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 4, 0, 0, 0xff, 0xd9]),
        'image/jpeg',
      ],
      ['JPEG with height 0 (DNL)', jpeg(10, 0), 'image/jpeg'],
      ['GIF header only', gif(3, 3).subarray(0, 6), 'image/gif'],
      ['TIFF pointing past the end', tiff(5, 5).toBuffer().subarray(0, 40), 'image/tiff'],
      ['SVG without any size', svg('class="x"'), 'image/svg+xml'],
      ['random bytes called a PNG', Buffer.from('not an image at all, just text'), 'image/png'],
      ['empty', Buffer.alloc(0), 'image/png'],
    ];
    for (const [label, bytes, mime] of cases) {
      const run = await infoOf(bytes, { mime, name: 'broken' });
      expect(run.info, label).toBeNull();
      expect(run.refused, label).toBe(0);
    }
  });
});
