import { describe, expect, it } from 'vitest';
import { createProviderTokens } from '../../src/file-provider/provider-tokens.js';

function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('provider tokens', () => {
  it('mints a token that verifies for its user, with the grant it names', () => {
    const time = clock();
    const tokens = createProviderTokens({ defaultTtlSeconds: 3600, now: time.now });
    const { token, grant } = tokens.mint({
      username: 'alice',
      server: 'vulnicheck',
      compat: true,
      label: 'scan',
    });
    expect(grant).toEqual({
      grantId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      username: 'alice',
      server: 'vulnicheck',
      compat: true,
      expiresAt: new Date(time.now() + 3600_000),
      label: 'scan',
    });
    expect(tokens.verify(token, 'alice')).toEqual({ ok: true, grant });
    expect(tokens.grants('alice')).toEqual([grant]);
  });

  it('refuses another user, non-strings and tampered tokens as invalid', () => {
    const tokens = createProviderTokens({ defaultTtlSeconds: 60 });
    const { token } = tokens.mint({ username: 'alice' });
    const other = tokens.mint({ username: 'bob' }).token;
    expect(tokens.verify(token, 'bob')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify(other, 'alice')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify(undefined, 'alice')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify('', 'alice')).toEqual({ ok: false, reason: 'invalid' });

    // Each part changed in turn: the grant id in front, the signed payload, the MAC.
    const [grantId, payload, mac] = token.split('.') as [string, string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const otherGrant = tokens.mint({ username: 'alice' }).grant.grantId;
    for (const forged of [
      `${otherGrant}.${payload}.${mac}`,
      `${grantId}.${flip(payload, 5)}.${mac}`,
      `${grantId}.${payload}.${flip(mac, 3)}`,
      `${grantId}.${payload}`,
      `${token}x`,
    ]) {
      expect(tokens.verify(forged, 'alice')).toEqual({ ok: false, reason: 'invalid' });
    }
    // A token signed by another instance (another process, a restart) is invalid here.
    const restarted = createProviderTokens({ defaultTtlSeconds: 60 });
    expect(restarted.verify(token, 'alice')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('reports expiry with an injected clock, and only to the token owner', () => {
    const time = clock();
    const tokens = createProviderTokens({ defaultTtlSeconds: 3600, now: time.now });
    const { token } = tokens.mint({ username: 'alice', ttlSeconds: 10 });
    time.advance(9_999);
    expect(tokens.verify(token, 'alice').ok).toBe(true);
    time.advance(1);
    expect(tokens.verify(token, 'alice')).toEqual({ ok: false, reason: 'expired' });
    expect(tokens.verify(token, 'bob')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.grants('alice')).toEqual([]);
  });

  it('revokes one grant, all of a user, or those of one server', () => {
    const tokens = createProviderTokens({ defaultTtlSeconds: 3600 });
    const a1 = tokens.mint({ username: 'alice', server: 's1' });
    const a2 = tokens.mint({ username: 'alice', server: 's2' });
    const a3 = tokens.mint({ username: 'alice' });
    const b1 = tokens.mint({ username: 'bob', server: 's1' });

    expect(tokens.revoke(a3.grant.grantId)).toBe(true);
    expect(tokens.revoke(a3.grant.grantId)).toBe(false);
    expect(tokens.verify(a3.token, 'alice')).toEqual({ ok: false, reason: 'invalid' });

    expect(tokens.revokeWhere({ username: 'alice', server: 's1' })).toBe(1);
    expect(tokens.verify(a1.token, 'alice')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify(a2.token, 'alice').ok).toBe(true);
    expect(tokens.verify(b1.token, 'bob').ok).toBe(true);

    expect(tokens.revokeWhere({ username: 'alice' })).toBe(1);
    expect(tokens.grants('alice')).toEqual([]);
    expect(tokens.grants('bob').map((g) => g.grantId)).toEqual([b1.grant.grantId]);
  });

  it('refuses a lifetime over the maximum', () => {
    const tokens = createProviderTokens({ defaultTtlSeconds: 3600, maxTtlSeconds: 7200 });
    expect(() => tokens.mint({ username: 'alice', ttlSeconds: 7201 })).toThrow(/ttlSeconds/);
    expect(tokens.mint({ username: 'alice', ttlSeconds: 7200 }).grant.username).toBe('alice');
  });
});
