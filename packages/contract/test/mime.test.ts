import { describe, expect, it } from 'vitest';
import {
  chooseViewer,
  extensionForMime,
  isGenericMime,
  isValidMime,
  mimeEssence,
  mimeFromName,
  viewerForFile,
} from '../src/codecs/mime.js';

describe('MIME helpers', () => {
  it.each([
    ['text/csv', true],
    ['text/csv; charset=utf-8', true],
    ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', true],
    ['image/svg+xml', true],
    ['not a mime', false],
    ['text/', false],
    ['/plain', false],
    ['text/plain/extra', false],
    ['', false],
    [42, false],
    [`text/${'a'.repeat(300)}`, false],
  ])('isValidMime(%j) = %s', (value, valid) => {
    expect(isValidMime(value)).toBe(valid);
  });

  it('essence lowercases and strips parameters', () => {
    expect(mimeEssence('Text/HTML; Charset=UTF-8')).toBe('text/html');
    expect(mimeEssence('garbage')).toBe('');
  });

  it('guesses from names and back', () => {
    expect(mimeFromName('report.pdf')).toBe('application/pdf');
    expect(mimeFromName('DATA.CSV')).toBe('text/csv');
    expect(mimeFromName('noext')).toBe('application/octet-stream');
    expect(extensionForMime('image/png')).toBe('png');
    expect(extensionForMime('application/x-unknown-thing')).toBeUndefined();
    expect(isGenericMime('application/octet-stream')).toBe(true);
    expect(isGenericMime('image/png')).toBe(false);
  });

  it.each([
    ['image/png', 'a.png', 'image'],
    ['image/svg+xml', 'a.svg', 'image'],
    ['application/pdf', 'a.pdf', 'pdf'],
    ['text/html', 'a.html', 'html'],
    ['text/markdown', 'a.md', 'markdown'],
    ['text/plain', 'notes.md', 'markdown'],
    ['text/csv', 'a.csv', 'csv'],
    ['text/tab-separated-values', 'a.tsv', 'csv'],
    ['application/json', 'a.json', 'json'],
    ['application/geo+json', 'a.geojson', 'json'],
    ['audio/mpeg', 'a.mp3', 'audio'],
    ['video/mp4', 'a.mp4', 'video'],
    ['text/x-python', 'a.py', 'code'],
    ['text/plain', 'a.txt', 'text'],
    ['application/zip', 'a.zip', 'download'],
  ])('viewer for %s %s is %s', (mime, name, viewer) => {
    expect(viewerForFile({ mime, name })).toBe(viewer);
  });

  it('follows code/text hints only for text-like files and never lets a hint change the content class', () => {
    expect(chooseViewer({ mime: 'text/html', name: 'a.html' }, 'code')).toBe('code');
    expect(chooseViewer({ mime: 'image/png', name: 'a.png' }, 'html')).toBe('image');
    expect(chooseViewer({ mime: 'image/png', name: 'a.png' }, 'code')).toBe('image');
    expect(chooseViewer({ mime: 'text/csv', name: 'a.csv' }, 'data')).toBe('csv');
    expect(chooseViewer({ mime: 'application/pdf', name: 'a.pdf' }, 'auto')).toBe('pdf');
  });
});
