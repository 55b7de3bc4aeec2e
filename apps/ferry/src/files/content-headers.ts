// Headers of a file download. Files are user and tool content served from the API's origin, so
// they must never run there: only types a browser shows without executing anything are inline
// (images except SVG, PDF, plain text, audio); everything else, HTML above all, is an attachment,
// with nosniff (set for every response in app.ts) and a sandboxing CSP.
import { isValidMime, mimeEssence, OCTET_STREAM } from '@ferry/contract';

export function isInlineSafe(mime: string): boolean {
  const essence = mimeEssence(mime);
  if (essence === 'image/svg+xml') return false;
  return (
    essence.startsWith('image/') ||
    essence.startsWith('audio/') ||
    essence === 'application/pdf' ||
    essence === 'text/plain'
  );
}

/**
 * RFC 6266 `Content-Disposition`: an ASCII `filename` for old clients and the exact name as
 * RFC 8187 `filename*`. Control characters (CR/LF above all: header injection) are dropped from
 * both; the fallback also loses `"`, `\` and `%` (some clients decode escapes in it).
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  const fallback = clean.replace(/[^\x20-\x7e]|["\\%]/g, '_').trim() || 'file';
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(clean || 'file')}`;
}

function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The stored type if it is a well-formed media type (it becomes a header), else octet-stream. */
export function safeContentType(mime: string): string {
  if (!isValidMime(mime) || /[\r\n]/.test(mime)) return OCTET_STREAM;
  const essence = mimeEssence(mime);
  return essence === 'text/plain' ? 'text/plain; charset=utf-8' : essence;
}

export type RangeRequest =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * RFC 9110 §14: one `bytes=` range (first-last, first-, or -suffix). A header that does not parse,
 * or asks for several ranges, is ignored and the whole file is sent, as the RFC allows; a range
 * that starts past the end (or any range of an empty file) is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(\d{0,16})\s*-\s*(\d{0,16})\s*$/i.exec(header);
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}
