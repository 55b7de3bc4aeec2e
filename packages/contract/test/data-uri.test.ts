import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dataUriLength,
  dataUriPrefix,
  encodeDataUri,
  parseDataUri,
  redactDataUri,
} from '../src/codecs/data-uri.js';

// SEP-2356 §Wire encoding: "a complete 1×1 PNG".
const PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg==';
const PNG_URI = `data:image/png;base64,${PNG_B64}`;

function parsed(text: string) {
  const result = parseDataUri(text);
  if (!result.ok) throw new Error(`expected ok, got: ${result.reason}`);
  return result.value;
}

function reason(text: unknown): string {
  const result = parseDataUri(text);
  if (result.ok) throw new Error(`expected a failure for ${String(text)}`);
  return result.reason;
}

// Property tests use fast-check: a failure is shrunk to a small input and reported with the seed
// and path that replay it (`fc.assert(..., { seed, path })`).

/** A fixed, non-trivial byte pattern of the given length (for the every-length examples). */
function patternBytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 151 + length * 7) & 0xff);
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('SEP-2356 test vectors', () => {
  it('parses the 1×1 PNG', () => {
    const value = parsed(PNG_URI);
    expect(value).toMatchObject({ mime: 'image/png', params: {}, base64: true, byteLength: 70 });
    expect(value.name).toBeUndefined();
    const bytes = value.data();
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.length).toBe(70);
  });

  it('re-encodes the PNG byte for byte', () => {
    expect(encodeDataUri({ mime: 'image/png', data: parsed(PNG_URI).data() })).toBe(PNG_URI);
  });

  it('parses the percent-encoded example data:text/plain,hello%20world', () => {
    const value = parsed('data:text/plain,hello%20world');
    expect(value).toMatchObject({ mime: 'text/plain', base64: false, byteLength: 11 });
    expect(text(value.data())).toBe('hello world');
    expect(encodeDataUri({ mime: 'text/plain', data: 'hello world' })).toBe('data:text/plain,hello%20world');
  });

  it('reads the name= example of the earlier draft (data:image/png;name=dot.png;base64,…)', () => {
    const value = parsed(`data:image/png;name=dot.png;base64,${PNG_B64}`);
    expect(value).toMatchObject({
      mime: 'image/png',
      name: 'dot.png',
      params: { name: 'dot.png' },
      byteLength: 70,
    });
  });

  it('matches the earlier draft percent-encoding vector for Report (v2); final.pdf', () => {
    const uri = encodeDataUri({
      mime: 'application/pdf',
      name: 'Report (v2); final.pdf',
      data: new Uint8Array(),
    });
    expect(uri).toBe('data:application/pdf;name=Report%20%28v2%29%3B%20final.pdf;base64,');
    expect(parsed(uri).name).toBe('Report (v2); final.pdf');
  });
});

describe('RFC 2397 rules', () => {
  it('defaults an omitted media type to text/plain;charset=US-ASCII', () => {
    const value = parsed('data:,A%20brief%20note');
    expect(value).toMatchObject({ mime: 'text/plain', params: { charset: 'US-ASCII' }, base64: false });
    expect(text(value.data())).toBe('A brief note');
  });

  it('keeps a charset given without a media type', () => {
    expect(parsed('data:;charset=utf-8,%C3%A9')).toMatchObject({
      mime: 'text/plain',
      params: { charset: 'utf-8' },
    });
    expect(parsed('data:;base64,QUJD')).toMatchObject({ mime: 'text/plain', base64: true, byteLength: 3 });
  });

  it('lower-cases type and parameter names but not values; the scheme is case-insensitive', () => {
    const value = parsed('DATA:Image/PNG;Name=Dot.PNG;CHARSET=X;BASE64,AAAA');
    expect(value).toMatchObject({
      mime: 'image/png',
      params: { name: 'Dot.PNG', charset: 'X' },
      base64: true,
    });
  });

  it('decodes quoted parameter values (RFC 2045 quoted-string)', () => {
    expect(parsed('data:text/plain;name="a;b \\"c\\".txt",x').name).toBe('a;b "c".txt');
    expect(parsed('data:text/plain;name="%C3%A9.txt",x').name).toBe('é.txt');
  });

  it('accepts percent-escapes inside base64 data', () => {
    expect(text(parsed('data:;base64,QUJ%44').data())).toBe('ABC');
    expect(text(parsed('data:;base64,QQ%3D%3D').data())).toBe('A');
  });

  it('keeps literal non-ASCII characters as UTF-8', () => {
    expect(text(parsed('data:text/plain;charset=utf-8,héllo').data())).toBe('héllo');
  });

  it('keeps a parameter called __proto__ as an own property', () => {
    const value = parsed('data:text/plain;__proto__=x,a');
    expect(Object.getPrototypeOf(value.params)).toBe(Object.prototype);
    expect(Object.hasOwn(value.params, '__proto__')).toBe(true);
  });

  it('returns a fresh array from each data() call', () => {
    const value = parsed('data:,abc');
    value.data()[0] = 0;
    expect(text(value.data())).toBe('abc');
  });
});

describe('malformed input', () => {
  it.each([
    ['', 'empty string'],
    ['image/png;base64,AAAA', "does not start with 'data:'"],
    [' data:,x', "does not start with 'data:'"],
    ['data:image/png;base64', "no ','"],
    ['data:image/png;base64,AA!A', 'invalid base64 data: invalid base64 character "!"'],
    ['data:image/png;base64,A', 'invalid base64 data: length 1'],
    ['data:image/png;base64;name=x,AAAA', "';base64' must be the last parameter"],
    ['data:image/png;name;base64,AAAA', 'parameter "name" has no \'=\''],
    ['data:image/png;;base64,AAAA', 'parameter "" has no \'=\''],
    ['data:png;base64,AAAA', 'media type "png" is not type/subtype'],
    ['data:base64,AAAA', 'media type "base64" is not type/subtype'],
    ['data:image/png;name="x;base64,AAAA', 'unterminated quoted parameter value'],
    ['data:image/png;name="x"y;base64,AAAA', 'parameter name: text after the closing quote'],
    ['data:image/png;name=a%2;base64,AAAA', 'parameter name: invalid percent-escape at offset 1'],
    ['data:image/png;name=%FF;base64,AAAA', 'parameter name: not UTF-8'],
    ['data:image/png;a b=c;base64,AAAA', 'parameter name "a b" is not a token'],
    ['data:image/png;name=a;NAME=b;base64,AAAA', 'duplicate parameter "name"'],
    // RFC 2397's own example carries %fg, which is not an escape; Ferry rejects it rather than guess.
    ['data:text/plain;charset=iso-8859-7,%be%fg%be', 'data: invalid percent-escape at offset 3'],
    ['data:;base64,QQ%3', 'data: invalid percent-escape at offset 2'],
  ])('%j', (input, expected) => {
    expect(reason(input)).toContain(expected);
  });

  it('never throws on non-strings', () => {
    expect(reason(null)).toBe('expected a string, got null');
    expect(reason(42)).toBe('expected a string, got number');
    expect(reason(undefined)).toBe('expected a string, got undefined');
  });
});

describe('encodeDataUri', () => {
  it('puts name= before ;base64 and percent-encodes ; , = and RFC 2045 tspecials', () => {
    const uri = encodeDataUri({ mime: 'text/csv', name: "a;b,c=d 'e'(f)*!.csv", data: new Uint8Array([1]) });
    expect(uri).toBe('data:text/csv;name=a%3Bb%2Cc%3Dd%20%27e%27%28f%29%2A%21.csv;base64,AQ==');
  });

  it('percent-encodes text by default and base64-encodes on request', () => {
    expect(encodeDataUri({ mime: 'text/plain', data: 'a,b;c=é' })).toBe('data:text/plain,a%2Cb%3Bc%3D%C3%A9');
    expect(encodeDataUri({ mime: 'text/plain', data: 'ABC', base64: true })).toBe(
      'data:text/plain;base64,QUJD',
    );
    expect(encodeDataUri({ mime: 'image/png', data: new Uint8Array([0, 255]), base64: false })).toBe(
      'data:image/png,%00%FF',
    );
  });

  it('uses application/octet-stream when no type is known and keeps media-type parameters', () => {
    expect(encodeDataUri({ mime: '', data: new Uint8Array([0]) })).toBe(
      'data:application/octet-stream;base64,AA==',
    );
    expect(encodeDataUri({ mime: 'Text/CSV; charset="utf-8"', name: 'x.csv', data: 'a' })).toBe(
      'data:text/csv;charset=utf-8;name=x.csv,a',
    );
  });

  it('lets an explicit name replace a name inside mime, and omits an empty name', () => {
    expect(dataUriPrefix({ mime: 'image/png;name=old.png', name: 'new.png' })).toBe(
      'data:image/png;name=new.png;base64,',
    );
    expect(dataUriPrefix({ mime: 'image/png', name: '' })).toBe('data:image/png;base64,');
  });

  it.each(['image', 'image/png,x', 'a b/c', 'image/png;charset'])('throws on malformed mime %j', (mime) => {
    expect(() => encodeDataUri({ mime, data: new Uint8Array() })).toThrow(TypeError);
  });
});

describe('round trips', () => {
  const names = [
    'résumé 2024 (final).pdf',
    'a;b.txt',
    'a,b.txt',
    'x=y.txt',
    '100% sure.txt',
    '"quoted" \\ back.txt',
    '日本語のファイル.xlsx',
    '😀 emoji.png',
    "it's *starred*!.md",
  ];

  it.each(names)('name %j', (name) => {
    const data = new Uint8Array([1, 2, 3, 250]);
    const value = parsed(encodeDataUri({ mime: 'application/octet-stream', name, data }));
    expect(value.name).toBe(name);
    expect(value.params).toEqual({ name });
    expect([...value.data()]).toEqual([...data]);
  });

  it('random bytes of every length up to 300, both encodings', () => {
    // Every length 0..300 runs as a fixed example (each base64 remainder at every size), then random bytes.
    const everyLength = Array.from({ length: 301 }, (_, length): [Uint8Array] => [patternBytes(length)]);
    fc.assert(
      // size 'max': lengths spread over 0..300, not fast-check's default of short arrays.
      fc.property(fc.uint8Array({ maxLength: 300, size: 'max' }), (data) => {
        for (const base64 of [true, false]) {
          const value = parsed(
            encodeDataUri({ mime: 'application/octet-stream', name: 'r.bin', data, base64 }),
          );
          expect(value.byteLength).toBe(data.length);
          expect(value.data()).toEqual(data);
        }
      }),
      { numRuns: 300, examples: everyLength },
    );
  });

  it('random unicode text', () => {
    // Printable ASCII and U+00A0..U+209F as before, plus any code point (astral, controls, specials).
    const codePoint = fc.oneof(
      fc.integer({ min: 32, max: 126 }),
      fc.integer({ min: 0xa0, max: 0x209f }),
      fc.integer({ min: 0, max: 0x10ffff }).filter((code) => code < 0xd800 || code > 0xdfff),
    );
    const unicodeText = fc.string({
      unit: codePoint.map((code) => String.fromCodePoint(code)),
      maxLength: 40,
      size: 'max',
    });
    fc.assert(
      fc.property(unicodeText, (value) => {
        expect(text(parsed(encodeDataUri({ mime: 'text/plain;charset=utf-8', data: value })).data())).toBe(
          value,
        );
        expect(parsed(encodeDataUri({ mime: 'text/plain', name: value, data: '' })).name).toBe(
          value || undefined,
        );
      }),
      { numRuns: 300, examples: [[''], ['a b;c,d=e'], ['\u00e9\u{1F600}']] },
    );
  });
});

describe('dataUriLength and dataUriPrefix', () => {
  it('equals the length of the encoded URI (property test)', () => {
    const names = [undefined, '', 'a.png', 'résumé 2024 (final).pdf', 'a;b,c=d.txt', '😀'];
    const mimes = ['image/png', '', 'text/plain;charset=utf-8', 'application/vnd.ms-excel'];
    // Any code point but a lone surrogate (by hand: fast-check's 'binary' unit is slow to generate).
    const anyChar = fc
      .integer({ min: 0, max: 0x10ffff })
      .filter((code) => code < 0xd800 || code > 0xdfff)
      .map((code) => String.fromCodePoint(code));
    const name = fc.oneof(fc.constantFrom(...names), fc.string({ unit: anyChar, maxLength: 20 }));
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 999, size: 'max' }),
        name,
        fc.constantFrom(...mimes),
        (data, name, mime) => {
          const options = name === undefined ? { mime } : { mime, name };
          const uri = encodeDataUri({ ...options, data });
          expect(dataUriLength({ ...options, byteLength: data.length })).toBe(uri.length);
          expect(uri.startsWith(dataUriPrefix(options))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is exact for large sizes without building anything', () => {
    expect(dataUriLength({ mime: 'image/png', byteLength: 5_242_880 })).toBe(
      'data:image/png;base64,'.length + 6_990_508,
    );
  });

  it('streams: prefix + base64 of 3-byte-aligned chunks equals the whole URI', () => {
    const chunkSize = fc.integer({ min: 1, max: 400 }).map((n) => n * 3);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000, size: 'max' }), chunkSize, (data, size) => {
        const prefix = dataUriPrefix({ mime: 'application/pdf', name: 'r (1).pdf' });
        const whole = encodeDataUri({ mime: 'application/pdf', name: 'r (1).pdf', data });
        const chunks: string[] = [];
        for (let i = 0; i < data.length; i += size) {
          chunks.push(
            encodeDataUri({ mime: 'x/y', data: data.subarray(i, i + size) }).slice('data:x/y;base64,'.length),
          );
        }
        expect(prefix + chunks.join('')).toBe(whole);
      }),
      { numRuns: 200, examples: [[patternBytes(1000), 300]] },
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects byteLength %s', (byteLength) => {
    expect(() => dataUriLength({ mime: 'image/png', byteLength })).toThrow(RangeError);
  });
});

describe('redactDataUri', () => {
  it('keeps the type and size only (SEP-2356 §Logging and telemetry)', () => {
    expect(redactDataUri(PNG_URI)).toBe('data:image/png;base64,[70 bytes]');
    expect(redactDataUri(`data:image/png;name=secret.png;base64,${PNG_B64}`)).toBe(
      'data:image/png;base64,[70 bytes]',
    );
    expect(redactDataUri('data:text/plain,hello%20world')).toBe('data:text/plain,[11 bytes]');
    expect(redactDataUri('data:image/png;base64,!!!!')).toBe('data:[malformed, 26 chars]');
    expect(redactDataUri('https://example.com/a.png')).toBe('https://example.com/a.png');
  });
});
