import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  isInlineSafe,
  parseRange,
  safeContentType,
} from '../../src/files/content-headers.js';

describe('parseRange', () => {
  it.each([
    [undefined, 10, { kind: 'full' }],
    ['bytes=0-4', 10, { kind: 'partial', start: 0, end: 4 }],
    ['bytes=3-', 10, { kind: 'partial', start: 3, end: 9 }],
    ['bytes=-4', 10, { kind: 'partial', start: 6, end: 9 }],
    ['bytes=-40', 10, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=2-400', 10, { kind: 'partial', start: 2, end: 9 }],
    ['BYTES = 1 - 2', 10, { kind: 'partial', start: 1, end: 2 }],
    ['bytes=10-', 10, { kind: 'unsatisfiable' }],
    ['bytes=-0', 10, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=-1', 0, { kind: 'unsatisfiable' }],
    ['bytes=5-3', 10, { kind: 'full' }],
    ['bytes=0-1,3-4', 10, { kind: 'full' }],
    ['bytes=-', 10, { kind: 'full' }],
    ['bytes=a-b', 10, { kind: 'full' }],
    [`bytes=${'9'.repeat(17)}-`, 10, { kind: 'full' }],
    ['bytes=9999999999999999-', 10, { kind: 'unsatisfiable' }],
  ])('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('attachment', 'résumé.pdf')).toBe(
      `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
    );
  });

  it('drops CR, LF and other controls, and quotes, backslashes and percent from the fallback', () => {
    const header = contentDisposition('inline', 'a\r\nSet-Cookie: x=1\u0000"\\%.txt');
    expect(header).not.toMatch(/[\r\n\u0000]/);
    expect(header).toBe(
      `inline; filename="aSet-Cookie: x=1___.txt"; filename*=UTF-8''aSet-Cookie%3A%20x%3D1%22%5C%25.txt`,
    );
  });

  it('never gives an empty name', () => {
    expect(contentDisposition('attachment', '\r\n')).toBe(
      `attachment; filename="file"; filename*=UTF-8''file`,
    );
  });
});

describe('inline-safe types', () => {
  it.each([
    ['image/png', true],
    ['image/jpeg', true],
    ['image/svg+xml', false],
    ['IMAGE/SVG+XML; charset=utf-8', false],
    ['application/pdf', true],
    ['text/plain; charset=utf-8', true],
    ['audio/mpeg', true],
    ['text/html', false],
    ['application/xhtml+xml', false],
    ['text/javascript', false],
    ['application/octet-stream', false],
    ['video/mp4', false],
    ['garbage', false],
  ])('%s → %s', (mime, inline) => {
    expect(isInlineSafe(mime)).toBe(inline);
  });

  it('a stored type that is not a media type is served as octet-stream', () => {
    expect(safeContentType('text/html\r\nX-Evil: 1')).toBe('application/octet-stream');
    expect(safeContentType('text/plain')).toBe('text/plain; charset=utf-8');
    expect(safeContentType('image/PNG')).toBe('image/png');
  });
});
