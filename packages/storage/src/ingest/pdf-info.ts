// Page count of a PDF without reading the document, tried cheapest first:
// 1. Linearized ("fast web view") files state it in the first object (/N), valid while the
//    file's length still equals its /L (an incremental update appended later changes both).
// 2. The page tree: startxref → xref sections → trailer /Root → catalog /Pages → its /Count,
//    the number every viewer shows. Costs a few small reads, more when objects sit in object
//    streams (one inflated stream).
// 3. When the xref is broken: the largest /Count of a `/Type /Pages` object in plain text in the
//    head or the last MiB (the root has the largest count). Misses trees packed in object
//    streams, and may see an older revision's tree.

import { type ByteSource, latin1 } from './byte-source.js';
import { dictOf, intOf, type PdfValue, parseIndirectObject } from './pdf-syntax.js';
import { openPdfDocument } from './pdf-xref.js';

/** Where `startxref` is looked for; writers put it in the last few hundred bytes. */
const STARTXREF_TAIL = 16 * 1024;
/** What the fallback scans besides the head. */
const SCAN_TAIL = 1024 * 1024;
/** More pages than this is a corrupt count (the largest real PDFs have ~10^5–10^6 pages). */
const MAX_PAGES = 100_000_000;

function validPages(value: PdfValue | undefined): number | undefined {
  const n = intOf(value);
  return n !== undefined && n <= MAX_PAGES ? n : undefined;
}

function linearizedPages(src: ByteSource): number | undefined {
  const text = latin1(src.head.subarray(0, 4096));
  const header = text.indexOf('%PDF-');
  const first = /\d+\s+\d+\s+obj\b/.exec(text.slice(header));
  if (header === -1 || !first) return undefined;
  try {
    const dict = dictOf(parseIndirectObject(text, header + first.index).value);
    if (!dict?.has('Linearized') || intOf(dict.get('L')) !== src.size) return undefined;
    return validPages(dict.get('N'));
  } catch {
    return undefined;
  }
}

async function pageTreePages(src: ByteSource): Promise<number | undefined> {
  const tailLength = Math.min(src.size, STARTXREF_TAIL);
  const tail = latin1(await src.read(src.size - tailLength, tailLength));
  const match = /startxref\s+(\d{1,15})/.exec(tail.slice(tail.lastIndexOf('startxref')));
  if (!match) return undefined;
  const doc = await openPdfDocument(src, Number(match[1]));
  const catalog = dictOf(await doc.resolve(doc.trailer.get('Root')));
  const pages = dictOf(await doc.resolve(catalog?.get('Pages')));
  return validPages(await doc.resolve(pages?.get('Count')));
}

/**
 * Bounds on the scan: `/Type /Pages` matches looked at (a 10,000-page document written with six
 * kids per node has ~2,000 tree nodes), chars parsed in all (so crafted text cannot make it
 * slow), and chars one object may take (a root with every page as a direct kid is ~10 per page).
 */
const MAX_SCAN_MATCHES = 8192;
const MAX_SCAN_CHARS = 8 * 1024 * 1024;
const MAX_SCAN_OBJECT = 256 * 1024;
/** How far before `/Type /Pages` its object header may be. */
const MAX_HEADER_DISTANCE = 4096;

/** Largest /Count among the `/Type /Pages` objects written in plain text in `text`. */
function scanPageTrees(text: string): number | undefined {
  let best: number | undefined;
  const parsed = new Set<number>();
  let matches = 0;
  let chars = MAX_SCAN_CHARS;
  for (const found of text.matchAll(/\/Type\s*\/Pages\b/g)) {
    if (++matches > MAX_SCAN_MATCHES || chars <= 0) break;
    // The object header is the nearest `n g obj` before the match, searched in a bounded span.
    const from = Math.max(0, found.index - MAX_HEADER_DISTANCE);
    const near = text.slice(from, found.index).lastIndexOf('obj');
    if (near === -1) continue;
    const objAt = from + near;
    const header = /\d+\s+\d+\s+obj$/.exec(text.slice(Math.max(0, objAt - 32), objAt + 3));
    if (!header) continue;
    const at = objAt + 3 - header[0].length;
    // Kids of one tree node often share the text before them; parse each object once.
    if (parsed.has(at)) continue;
    parsed.add(at);
    const end = at + Math.min(MAX_SCAN_OBJECT, chars);
    try {
      const object = parseIndirectObject(text, at, end);
      chars -= object.next - at;
      const dict = dictOf(object.value);
      const count = dict?.get('Type') === 'Pages' ? validPages(dict.get('Count')) : undefined;
      if (count !== undefined && (best === undefined || count > best)) best = count;
    } catch {
      // A cut-off or malformed candidate: charge the whole window and try the next one.
      chars -= end - at;
    }
  }
  return best;
}

async function scannedPages(src: ByteSource): Promise<number | undefined> {
  const inHead = scanPageTrees(latin1(src.head));
  if (src.head.length >= src.size) return inHead;
  const tailLength = Math.min(src.size - src.head.length, SCAN_TAIL);
  let inTail: number | undefined;
  try {
    inTail = scanPageTrees(latin1(await src.read(src.size - tailLength, tailLength)));
  } catch {
    // Out of read budget after a failed page-tree walk: the head is what we have.
  }
  if (inHead === undefined) return inTail;
  return inTail === undefined ? inHead : Math.max(inHead, inTail);
}

/** Page count, or null when the file is not a PDF or none of the methods above can tell. */
export async function pdfInfo(src: ByteSource): Promise<{ pages: number } | null> {
  if (!latin1(src.head.subarray(0, 1024)).includes('%PDF-')) return null;
  let pages = linearizedPages(src);
  if (pages === undefined) {
    try {
      pages = await pageTreePages(src);
    } catch {
      // Broken or unsupported cross-reference data: fall back to scanning.
    }
  }
  pages ??= await scannedPages(src);
  return pages === undefined ? null : { pages };
}
