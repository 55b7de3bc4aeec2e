// Pixel size of an image. JPEG, TIFF and GIF are walked here (their size can be far from the
// start, or, for GIF, in the first frame as well as the header); every other format (PNG, WebP,
// BMP, SVG, ICO, PSD, AVIF/HEIF, JPEG XL, …) goes to `image-size`, which reads the size from the
// first bytes. Checked against Pillow on files from real writers (test/fixtures/ingest-corpus).

import { imageSize } from 'image-size';
import { type ByteSource, startsWith } from './byte-source.js';
import { gifSize, jpegSize, type PixelSize, tiffSize } from './image-walkers.js';

/** One retry with this much of the file when the head alone did not do (e.g. HEIF boxes). */
const RETRY_PREFIX_BYTES = 1024 * 1024;
/** Larger claims are corrupt or hostile; no real image is 2^31 pixels wide. */
const MAX_DIMENSION = 0x7fffffff;

const JPEG = [0xff, 0xd8, 0xff];
const GIF = [0x47, 0x49, 0x46, 0x38]; // GIF8
const TIFF_LE = [0x49, 0x49];
const TIFF_BE = [0x4d, 0x4d];

function valid(size: PixelSize | null | undefined): PixelSize | null {
  if (!size) return null;
  const { width, height } = size;
  const ok = (n: number) => Number.isSafeInteger(n) && n > 0 && n <= MAX_DIMENSION;
  return ok(width) && ok(height) ? { width, height } : null;
}

function fromLibrary(bytes: Uint8Array): PixelSize | null {
  try {
    const size = imageSize(bytes);
    return valid({ width: size.width, height: size.height });
  } catch {
    // image-size throws on unknown, truncated or corrupt input; "cannot tell" is null here.
    return null;
  }
}

export async function imageInfo(src: ByteSource): Promise<PixelSize | null> {
  const { head } = src;
  if (startsWith(head, JPEG)) return valid(await jpegSize(src));
  if (startsWith(head, GIF)) return valid(await gifSize(src));
  if (startsWith(head, TIFF_LE) || startsWith(head, TIFF_BE)) {
    const size = await tiffSize(src);
    if (size) return valid(size);
  }
  const size = fromLibrary(head);
  // SVG (text, starts with `<`) gets no retry: its root tag is near the start or nowhere, and
  // image-size's SVG regex over a large crafted input is the slowest thing it could do.
  if (size || head.length >= src.size || head[0] === 0x3c) return size;
  return fromLibrary(await src.read(0, Math.min(src.size, RETRY_PREFIX_BYTES)));
}
