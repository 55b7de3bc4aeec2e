// Page count of a PDF without reading the document, tried cheapest first:
// 1. Linearized ("fast web view") files state it in the first object (/N), valid while the
//    file's length still equals its /L (an incremental update appended later changes both).
// 2. The page tree: startxref → xref sections → trailer /Root → catalog /Pages → its /Count,
//    the number every viewer shows. Costs a few small reads, more when objects sit in object
//    streams (one inflated stream).
// 3. When `startxref` is missing or wrong: the page tree from the newest xref section written
//    in the last MiB (a classic table or an xref stream), as viewers repair such files.
// 4. When the xref is broken: the largest /Count of a `/Type /Pages` object in plain text in the
//    head or the last MiB (the root has the largest count). Misses trees packed in object
//    streams, and may see an older revision's tree.
// Offsets count from the `%PDF-` header, which may follow junk (mail headers, a download
// helper's prefix); 1–3 are tried from there first and then from the start of the file, for the
// writers that counted the junk too. Checked against pdf.js on files from real writers
// (test/fixtures/ingest-corpus).

import { type ByteSource, latin1 } from './byte-source.js';
import { dictOf, intOf, type PdfValue, parseIndirectObject } from './pdf-syntax.js';
import { openPdfDocument, type PdfDocument } from './pdf-xref.js';

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

async function countOf(doc: PdfDocument): Promise<number | undefined> {
  const catalog = dictOf(await doc.resolve(doc.trailer.get('Root')));
  const pages = dictOf(await doc.resolve(catalog?.get('Pages')));
  return validPages(await doc.resolve(pages?.get('Count')));
}

async function pageTreePages(src: ByteSource): Promise<number | undefined> {
  const tailLength = Math.min(src.size, STARTXREF_TAIL);
  const tail = latin1(await src.read(src.size - tailLength, tailLength));
  const match = /startxref\s+(\d{1,15})/.exec(tail.slice(tail.lastIndexOf('startxref')));
  if (!match) return undefined;
  return countOf(await openPdfDocument(src, Number(match[1])));
}

/** Xref sections tried when `startxref` fails (the newest first); each costs a few reads. */
const MAX_RECOVERY_SECTIONS = 4;
/** `/Type /XRef` matches looked at for those sections. */
const MAX_RECOVERY_MATCHES = 64;

/** Start of the `n g obj` header of the object around `index`, searched in a bounded span. */
function objectHeaderBefore(text: string, index: number): number | undefined {
  const from = Math.max(0, index - MAX_HEADER_DISTANCE);
  const near = text.slice(from, index).lastIndexOf('obj');
  if (near === -1) return undefined;
  const objAt = from + near;
  const header = /\d+\s+\d+\s+obj$/.exec(text.slice(Math.max(0, objAt - 32), objAt + 3));
  return header ? objAt + 3 - header[0].length : undefined;
}

/** The page count from the newest xref section in the last MiB, ignoring `startxref`. */
async function recoveredPages(src: ByteSource): Promise<number | undefined> {
  const tailLength = Math.min(src.size, SCAN_TAIL);
  const tailStart = src.size - tailLength;
  const text = latin1(await src.read(tailStart, tailLength));
  // A classic table starts a line with `xref`; `startxref` does not match.
  const tables = [...text.matchAll(/(?:^|[\r\n])xref\s/g)].map(
    (found) => found.index + found[0].indexOf('x'),
  );
  // Xref streams by their dictionary, newest first; looking for each one's header costs a bounded
  // span, so only so many are looked at (crafted text may repeat `/Type /XRef` endlessly).
  const streams: number[] = [];
  const typeMatches = [...text.matchAll(/\/Type\s*\/XRef\b/g)].reverse().slice(0, MAX_RECOVERY_MATCHES);
  for (const found of typeMatches) {
    const at = objectHeaderBefore(text, found.index);
    if (at !== undefined && !streams.includes(at)) streams.push(at);
    if (streams.length === MAX_RECOVERY_SECTIONS) break;
  }
  const newestFirst = [...tables.slice(-MAX_RECOVERY_SECTIONS), ...streams]
    .sort((a, b) => b - a)
    .slice(0, MAX_RECOVERY_SECTIONS);
  for (const at of newestFirst) {
    try {
      const pages = await countOf(await openPdfDocument(src, tailStart + at));
      if (pages !== undefined) return pages;
    } catch {
      // Not a readable section after all (or it points at broken objects): try an older one.
    }
  }
  return undefined;
}

/** The file seen from its `%PDF-` header on, where offsets start. */
function fromHeader(src: ByteSource, header: number): ByteSource {
  return {
    size: src.size - header,
    head: src.head.subarray(header),
    read: (start, length) => src.read(header + start, length),
  };
}

/** Methods 1–3 on one view of the file. */
async function structuredPages(src: ByteSource): Promise<number | undefined> {
  const linearized = linearizedPages(src);
  if (linearized !== undefined) return linearized;
  try {
    const pages = await pageTreePages(src);
    if (pages !== undefined) return pages;
  } catch {
    // Broken or unsupported cross-reference data: look for the sections themselves.
  }
  try {
    return await recoveredPages(src);
  } catch {
    // Out of read budget: only the scan of what was read is left.
    return undefined;
  }
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
    // The object header is the nearest `n g obj` before the match.
    const at = objectHeaderBefore(text, found.index);
    if (at === undefined) continue;
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
  const header = latin1(src.head.subarray(0, 1024)).indexOf('%PDF-');
  if (header === -1) return null;
  let pages = header > 0 ? await structuredPages(fromHeader(src, header)) : undefined;
  pages ??= await structuredPages(src);
  pages ??= await scannedPages(src);
  return pages === undefined ? null : { pages };
}
