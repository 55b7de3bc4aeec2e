import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createTokenSigner,
  DEFAULT_TOKEN_TTL_SECONDS,
  type TokenKey,
} from '../../src/tokens/token-signer.js';

const K1: TokenKey = { id: 'k1', secret: 'k1-secret-k1-secret-k1-secret-k1-secret' };
const K2: TokenKey = { id: 'k2', secret: new Uint8Array(32).fill(7) };
const START = Date.parse('2030-01-01T00:00:00Z');
const owner = randomUUID();
const fileId = randomUUID();

function clock(start = START) {
  let now = start;
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
}

const payloadOf = (token: string) => Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8');

describe('download tokens', () => {
  it('round-trips owner, file and expiry; the default lifetime is five minutes', () => {
    const time = clock();
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: time.now });
    const token = signer.sign({ owner, fileId });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(DEFAULT_TOKEN_TTL_SECONDS).toBe(300);
    const expected = { ok: true, owner, fileId, expiresAt: new Date(START + 300_000) };
    expect(signer.verify(token, { owner, fileId })).toEqual(expected);
    expect(signer.verify(token, { fileId })).toEqual(expected);
    time.advance(299);
    expect(signer.verify(token, { owner, fileId }).ok).toBe(true);
    time.advance(1);
    expect(signer.verify(token, { owner, fileId })).toEqual({ ok: false, reason: 'expired' });
  });

  it('honours a given or configured lifetime within the maximum', () => {
    const time = clock();
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: time.now, defaultTtlSeconds: 60 });
    const short = signer.sign({ owner, fileId });
    const long = signer.sign({ owner, fileId, ttlSeconds: 3600 });
    time.advance(61);
    expect(signer.verify(short, { owner, fileId })).toEqual({ ok: false, reason: 'expired' });
    expect(signer.verify(long, { owner, fileId })).toMatchObject({
      ok: true,
      expiresAt: new Date(START + 3_600_000),
    });
    expect(() => signer.sign({ owner, fileId, ttlSeconds: 0 })).toThrow(/ttlSeconds/);
    expect(() => signer.sign({ owner, fileId, ttlSeconds: 86_401 })).toThrow(/ttlSeconds/);
    expect(() => signer.sign({ owner, fileId, ttlSeconds: 1.5 })).toThrow(/ttlSeconds/);
  });

  it('rejects another file and another owner with distinct reasons', () => {
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: clock().now });
    const token = signer.sign({ owner, fileId });
    expect(signer.verify(token, { owner, fileId: randomUUID() })).toEqual({
      ok: false,
      reason: 'wrong_file',
    });
    expect(signer.verify(token, { owner: randomUUID(), fileId })).toEqual({
      ok: false,
      reason: 'wrong_owner',
    });
  });

  it('rejects a token with any single character changed, at every position', () => {
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: clock().now });
    const token = signer.sign({ owner, fileId });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    let tried = 0;
    for (let i = 0; i < token.length; i++) {
      for (const replacement of alphabet) {
        if (replacement === token[i]) continue;
        const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
        const result = signer.verify(tampered, { owner, fileId });
        if (result.ok)
          throw new Error(`accepted tampered token at position ${i} (${replacement}): ${tampered}`);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(token.length * 60);
  });

  it('rejects re-signed payloads: a changed owner, file or expiry with the old MAC is a bad signature', () => {
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: clock().now });
    const token = signer.sign({ owner, fileId });
    const mac = token.split('.')[1];
    const [format, kid, , , expiry] = payloadOf(token).split('\n');
    const forge = (fields: string[]) => `${Buffer.from(fields.join('\n')).toString('base64url')}.${mac}`;
    const other = randomUUID();
    expect(signer.verify(forge([format, kid, other, fileId, expiry] as string[]), { fileId })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(signer.verify(forge([format, kid, owner, other, expiry] as string[]), { fileId: other })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const later = String(Number(expiry) + 3600);
    expect(signer.verify(forge([format, kid, owner, fileId, later] as string[]), { fileId })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rotates keys: the active key signs, every listed key verifies, unlisted keys are unknown', () => {
    const time = clock();
    const before = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: time.now });
    const during = createTokenSigner({ keys: [K1, K2], activeKeyId: 'k2', now: time.now });
    const after = createTokenSigner({ keys: [K2], activeKeyId: 'k2', now: time.now });
    const old = before.sign({ owner, fileId });
    const fresh = during.sign({ owner, fileId });
    expect(payloadOf(old).split('\n')[1]).toBe('k1');
    expect(payloadOf(fresh).split('\n')[1]).toBe('k2');
    expect(during.activeKeyId).toBe('k2');
    expect(during.verify(old, { owner, fileId }).ok).toBe(true);
    expect(during.verify(fresh, { owner, fileId }).ok).toBe(true);
    expect(after.verify(fresh, { owner, fileId }).ok).toBe(true);
    expect(after.verify(old, { owner, fileId })).toEqual({ ok: false, reason: 'unknown_key' });
    expect(before.verify(fresh, { owner, fileId })).toEqual({ ok: false, reason: 'unknown_key' });
    // Same key id, different secret: the signature, not the id, decides.
    const impostor = createTokenSigner({ keys: [{ id: 'k1', secret: 'x'.repeat(32) }], activeKeyId: 'k1' });
    expect(impostor.verify(old, { owner, fileId })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('calls malformed input malformed, whatever its shape', () => {
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1', now: clock().now });
    const token = signer.sign({ owner, fileId });
    const [payload, mac] = token.split('.') as [string, string];
    const macOf = (text: string) =>
      createHmac('sha256', K1.secret as string)
        .update(`ferry.download-token\n${text}`)
        .digest('base64url');
    const inputs: unknown[] = [
      '',
      '.',
      'abc',
      payload,
      `${payload}.`,
      `.${mac}`,
      `${payload}.${mac}.${mac}`,
      `${payload}.${mac.slice(1)}`,
      `${payload}=.${mac}`,
      `${payload.replace(/./, '+')}.${mac}`,
      `${payload}.${mac}`.padEnd(5000, 'A'),
      'x'.repeat(1_000_000),
      `${'A'.repeat(3000)}.${mac}`,
      ' '.repeat(10),
      `${payload}\n.${mac}`,
      undefined,
      null,
      123,
      {},
      // Well-formed base64url around payloads that are not ours, even with a valid MAC.
      `${Buffer.from('f1\nk1\nowner\nfile').toString('base64url')}.${macOf('f1\nk1\nowner\nfile')}`,
      `${Buffer.from('f2\nk1\no\nf\n1').toString('base64url')}.${macOf('f2\nk1\no\nf\n1')}`,
      `${Buffer.from('f1\nk1\no\nf\nsoon').toString('base64url')}.${macOf('f1\nk1\no\nf\nsoon')}`,
      `${Buffer.from([0xff, 0xfe, 0x0a]).toString('base64url')}.${mac}`,
    ];
    for (const input of inputs) {
      expect(signer.verify(input, { owner, fileId }), String(input).slice(0, 60)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
  });

  it('refuses unsafe options and fields when built or signing', () => {
    expect(() => createTokenSigner({ keys: [{ id: 'k', secret: 'short' }], activeKeyId: 'k' })).toThrow(/32/);
    expect(() => createTokenSigner({ keys: [K1, K1], activeKeyId: 'k1' })).toThrow(/twice/);
    expect(() => createTokenSigner({ keys: [K1], activeKeyId: 'k2' })).toThrow(/activeKeyId/);
    expect(() => createTokenSigner({ keys: [], activeKeyId: 'k1' })).toThrow(/activeKeyId/);
    expect(() => createTokenSigner({ keys: [{ ...K1, id: 'a.b' }], activeKeyId: 'a.b' })).toThrow(/key id/);
    expect(() => createTokenSigner({ keys: [K1], activeKeyId: 'k1', defaultTtlSeconds: 0 })).toThrow(
      /default/,
    );
    const signer = createTokenSigner({ keys: [K1], activeKeyId: 'k1' });
    expect(() => signer.sign({ owner: 'a\nb', fileId })).toThrow(/owner/);
    expect(() => signer.sign({ owner, fileId: '' })).toThrow(/fileId/);
    expect(() => signer.sign({ owner, fileId: 'x'.repeat(257) })).toThrow(/fileId/);
  });
});
