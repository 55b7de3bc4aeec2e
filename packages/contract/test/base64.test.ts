import { afterEach, describe, expect, it, vi } from 'vitest';
import { base64EncodedLength, checkBase64, decodeBase64, encodeBase64 } from '../src/codecs/base64.js';

function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('base64', () => {
  it('round-trips every length 0..300 and matches Node', () => {
    for (let n = 0; n <= 300; n++) {
      const bytes = randomBytes(n, n + 1);
      const text = encodeBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(text.length).toBe(base64EncodedLength(n));
      expect(checkBase64(text)).toEqual({ valid: true, clean: text, byteLength: n });
      expect(decodeBase64(text)).toEqual(bytes);
    }
  });

  it('accepts unpadded, URL-safe and line-wrapped input', () => {
    expect(decodeBase64('aGk')).toEqual(new Uint8Array([104, 105]));
    const bytes = randomBytes(200, 7);
    expect(decodeBase64(Buffer.from(bytes).toString('base64url'))).toEqual(bytes);
    const wrapped = Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n');
    expect(decodeBase64(wrapped)).toEqual(bytes);
  });

  it.each([
    ['a', /not a valid base64 length/],
    ['ab=c', /padding/],
    ['abc===', /padding/],
    ['ab$c', /invalid base64 character "\$" at offset 2/],
    ['ab+c-d==', /mixes/],
    ['aé==', /invalid base64 character/],
    ['abc=d', /padding/],
    ['a===', /padding/],
  ])('rejects %j', (text, reason) => {
    const check = checkBase64(text);
    expect(check.valid).toBe(false);
    if (!check.valid) expect(check.reason).toMatch(reason);
    expect(() => decodeBase64(text)).toThrow(TypeError);
  });

  it('treats the empty string as zero bytes', () => {
    expect(checkBase64('')).toEqual({ valid: true, clean: '', byteLength: 0 });
  });
});

describe('base64 in a browser (no Buffer: atob/btoa)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('decodes and encodes the same bytes as Node, both alphabets, with the same reasons', async () => {
    const NodeBuffer = Buffer;
    vi.stubGlobal('Buffer', undefined);
    vi.resetModules();
    const browser = await import('../src/codecs/base64.js');
    vi.unstubAllGlobals();
    for (const n of [0, 1, 2, 3, 100, 70_000]) {
      const bytes = randomBytes(n, n + 3);
      const standard = NodeBuffer.from(bytes).toString('base64');
      expect(browser.encodeBase64(bytes)).toBe(standard);
      expect(browser.decodeBase64(standard)).toEqual(bytes);
      expect(browser.decodeBase64(NodeBuffer.from(bytes).toString('base64url'))).toEqual(bytes);
    }
    expect(() => browser.decodeBase64('ab$c')).toThrow(/invalid base64 character "\$" at offset 2/);
  });
});
