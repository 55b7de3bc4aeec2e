// The key derivations and ciphers are checked end to end on encrypted files written by qpdf
// (corpus.test.ts); qpdf writes /O and /U as hex strings, so literal strings are checked here.

import { describe, expect, it } from 'vitest';
import { streamDecryptor, stringBytes } from '../../src/ingest/pdf-crypt.js';
import { PdfLexer, type PdfValue } from '../../src/ingest/pdf-syntax.js';

// A token after the value, as in a file: a number looks ahead for `gen R`.
const parse = (text: string): PdfValue => new PdfLexer(`${text} endobj\n`).value();
const bytes = (text: string) => [...(stringBytes(parse(text)) ?? [])];

describe('stringBytes', () => {
  it('undoes the escapes of literal strings', () => {
    expect(bytes('(a\\n\\r\\t\\b\\f\\(\\)\\\\z)')).toEqual([97, 10, 13, 9, 8, 12, 40, 41, 92, 122]);
    // Octal escapes of one to three digits; a fourth digit is a character of its own.
    expect(bytes('(\\0\\53\\0531\\377)')).toEqual([0, 43, 43, 49, 255]);
    // A backslash before an end of line joins the lines; a bare CR or CRLF reads as LF.
    expect(bytes('(ab\\\ncd\\\r\nef\r\ngh\ri)')).toEqual([...Buffer.from('abcdef\ngh\ni')]);
    // An unknown escape keeps the character; balanced parentheses need none.
    expect(bytes('(\\q(x))')).toEqual([...Buffer.from('q(x)')]);
    // Bytes above 0x7F come through as they are (the lexer reads Latin-1).
    expect(bytes('(\u00ff\u0080)')).toEqual([255, 128]);
  });

  it('reads hex strings, ignoring whitespace and padding an odd digit with 0', () => {
    expect(bytes('<48 65\n6C6c 6f>')).toEqual([...Buffer.from('Hello')]);
    expect(bytes('<ABC>')).toEqual([0xab, 0xc0]);
    expect(stringBytes(parse('<zz>'))).toBeUndefined();
  });

  it('is undefined for values that are not strings', () => {
    for (const text of ['/Name', '12', '[<00>]', '<< /A 1 >>', 'null']) {
      expect(stringBytes(parse(text)), text).toBeUndefined();
    }
  });
});

describe('streamDecryptor', () => {
  const dict = (text: string) => parse(text) as Map<string, PdfValue>;

  it('declines other security handlers and unknown revisions', () => {
    expect(
      streamDecryptor(dict('<< /Filter /Adobe.PubSec /V 4 /R 4 >>'), new Uint8Array(16)),
    ).toBeUndefined();
    expect(streamDecryptor(dict('<< /Filter /Standard /V 5 /R 7 >>'), new Uint8Array(16))).toBeUndefined();
    expect(
      streamDecryptor(
        dict('<< /Filter /Standard /V 4 /R 4 /StmF /X /CF << /X << /CFM /Unknown >> >> >>'),
        undefined,
      ),
    ).toBeUndefined();
  });

  it('leaves streams as they are under the Identity crypt filter', () => {
    const decrypt = streamDecryptor(dict('<< /Filter /Standard /V 4 /R 4 /StmF /Identity >>'), undefined);
    expect(decrypt?.(1, 0, Uint8Array.from([1, 2, 3]))).toEqual(Uint8Array.from([1, 2, 3]));
  });
});
