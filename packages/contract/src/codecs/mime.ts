// MIME helpers shared by the host (what to store) and the web app (which viewer to open).
import mime from 'mime';

export const OCTET_STREAM = 'application/octet-stream';

// RFC 6838 §4.2 restricted-name: first char alphanumeric, then up to 126 of these.
const TOKEN = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
const MIME_RE = new RegExp(`^${TOKEN}/${TOKEN}$`);

/** `type/subtype` in lower case, parameters stripped; '' when the value is not a MIME type. */
export function mimeEssence(value: string): string {
  const essence = (value.split(';', 1)[0] ?? '').trim().toLowerCase();
  return MIME_RE.test(essence) ? essence : '';
}

/** True for a syntactically valid media type (parameters allowed, not checked in detail). */
export function isValidMime(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && mimeEssence(value) !== '';
}

/** MIME type guessed from a file name's extension, `application/octet-stream` when unknown. */
export function mimeFromName(name: string): string {
  return mime.getType(name) ?? OCTET_STREAM;
}

/** Usual extension (without dot) for a MIME type, or undefined. */
export function extensionForMime(type: string): string | undefined {
  return mime.getExtension(mimeEssence(type)) ?? undefined;
}

/** Generic claims that say nothing about the content, so sniffing or the name should decide. */
export function isGenericMime(type: string): boolean {
  const essence = mimeEssence(type);
  return essence === '' || essence === OCTET_STREAM || essence === 'binary/octet-stream';
}

export const VIEWERS = [
  'image',
  'pdf',
  'html',
  'markdown',
  'code',
  'csv',
  'json',
  'audio',
  'video',
  'text',
  'download',
] as const;
export type Viewer = (typeof VIEWERS)[number];

const CODE_EXTENSIONS =
  /\.(ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|c|h|cpp|hpp|cs|sh|bash|sql|yaml|yml|toml|xml|css|scss|ini|r|swift|php|lua)$/i;

/** The viewer that fits a file by its MIME type and name, ignoring any hint. */
export function viewerForFile(file: { mime: string; name?: string }): Viewer {
  const essence = mimeEssence(file.mime);
  const name = file.name ?? '';
  if (essence === 'image/svg+xml') return 'image';
  if (essence.startsWith('image/')) return 'image';
  if (essence === 'application/pdf') return 'pdf';
  if (essence === 'text/html' || essence === 'application/xhtml+xml') return 'html';
  if (essence === 'text/markdown' || /\.(md|markdown)$/i.test(name)) return 'markdown';
  if (essence === 'text/csv' || essence === 'text/tab-separated-values' || /\.(csv|tsv)$/i.test(name))
    return 'csv';
  if (essence === 'application/json' || essence.endsWith('+json') || /\.json$/i.test(name)) return 'json';
  if (essence.startsWith('audio/')) return 'audio';
  if (essence.startsWith('video/')) return 'video';
  if (CODE_EXTENSIONS.test(name) || essence === 'application/javascript' || essence === 'text/javascript') {
    return 'code';
  }
  if (essence.startsWith('text/') || essence === 'application/xml') return 'text';
  return 'download';
}

/**
 * The viewer to open. A tool's hint (`viewer` of v2.1 or `viewer_hint` of v2: image, pdf, html,
 * code, data, auto) only matters where it can change the presentation safely: `code`/`text` show
 * a text-like file as source. Every other hint already agrees with the content or is wrong, and a
 * wrong hint must never render a PNG as HTML, so the content decides.
 */
export function chooseViewer(file: { mime: string; name?: string }, hint?: string): Viewer {
  const natural = viewerForFile(file);
  if ((hint === 'code' || hint === 'text') && TEXT_LIKE.has(natural)) return hint;
  return natural;
}

const TEXT_LIKE = new Set<Viewer>(['code', 'text', 'markdown', 'csv', 'json', 'html']);
