// Bearer tokens for the file provider. A token names one grant (who, for which server, until when)
// and is signed with a key made at start-up and never stored: a restart revokes every token, so a
// leaked token cannot outlive the process (fail closed). Grants live in memory, so a token can be
// revoked before it expires (per grant, per user, per user and server).
//
// Token = "<grant id>.<signed>", where <signed> is a @ferry/storage download token whose owner is
// the username and whose file id is "fp.<grant id>": the signer checks the MAC, the expiry, the
// owner, and that the grant id in front is the one it signed.
import { randomBytes } from 'node:crypto';
import { createTokenSigner } from '@ferry/storage';

const DEFAULT_MAX_TTL_SECONDS = 24 * 60 * 60;
/** An expired grant is remembered this long, so its token reads as expired rather than invalid. */
const EXPIRED_GRACE_MS = 60 * 60 * 1000;
const GRANT_ID = /^[A-Za-z0-9_-]{22}$/;

export interface ProviderGrant {
  grantId: string;
  username: string;
  /** The server connection the token was minted for; absent for a token minted for the user. */
  server?: string;
  /** Answer with the compatibility surface whatever the endpoint path. */
  compat: boolean;
  expiresAt: Date;
  label?: string;
}

export interface ProviderTokensOptions {
  /** Lifetime when mint is given none (settings.tokenTtlSeconds). */
  defaultTtlSeconds: number;
  /** Longest lifetime mint accepts. @default 86400 */
  maxTtlSeconds?: number;
  /** Clock in epoch milliseconds. @default Date.now */
  now?: () => number;
}

export interface MintProviderTokenInput {
  username: string;
  server?: string;
  /** @default false */
  compat?: boolean;
  ttlSeconds?: number;
  label?: string;
}

export type ProviderTokenVerification =
  | { ok: true; grant: ProviderGrant }
  | { ok: false; reason: 'invalid' | 'expired' };

export interface ProviderTokens {
  /** Throws on a TTL out of 1..maxTtlSeconds or an empty username (caller mistakes). */
  mint(input: MintProviderTokenInput): { token: string; grant: ProviderGrant };
  /** Signature, expiry, grant still live, and issued to `username`; another user's token is invalid. */
  verify(token: unknown, username: string): ProviderTokenVerification;
  revoke(grantId: string): boolean;
  /** Revokes the user's live grants, only those of `server` when given; returns how many. */
  revokeWhere(filter: { username: string; server?: string }): number;
  /** The user's live grants. */
  grants(username: string): ProviderGrant[];
}

export function createProviderTokens(options: ProviderTokensOptions): ProviderTokens {
  const now = options.now ?? Date.now;
  const signer = createTokenSigner({
    keys: [{ id: 'fp', secret: randomBytes(32) }],
    activeKeyId: 'fp',
    defaultTtlSeconds: options.defaultTtlSeconds,
    maxTtlSeconds: options.maxTtlSeconds ?? DEFAULT_MAX_TTL_SECONDS,
    now,
  });
  const grants = new Map<string, ProviderGrant>();
  const isLive = (grant: ProviderGrant) => grant.expiresAt.getTime() > now();

  const prune = () => {
    const cutoff = now() - EXPIRED_GRACE_MS;
    for (const [id, grant] of grants) if (grant.expiresAt.getTime() <= cutoff) grants.delete(id);
  };

  return {
    mint({ username, server, compat = false, ttlSeconds, label }) {
      prune();
      const grantId = randomBytes(16).toString('base64url');
      const fileId = `fp.${grantId}`;
      const signed = signer.sign({
        owner: username,
        fileId,
        ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      });
      // The signer computed the expiry; read it back rather than recompute it on another tick.
      const checked = signer.verify(signed, { owner: username, fileId });
      const expiresAt = checked.ok
        ? checked.expiresAt
        : new Date(now() + (ttlSeconds ?? options.defaultTtlSeconds) * 1000);
      const grant: ProviderGrant = {
        grantId,
        username,
        ...(server !== undefined ? { server } : {}),
        compat,
        expiresAt,
        ...(label !== undefined ? { label } : {}),
      };
      grants.set(grantId, grant);
      return { token: `${grantId}.${signed}`, grant: { ...grant } };
    },

    verify(token, username) {
      if (typeof token !== 'string') return { ok: false, reason: 'invalid' };
      const dot = token.indexOf('.');
      const grantId = token.slice(0, dot);
      if (dot < 0 || !GRANT_ID.test(grantId)) return { ok: false, reason: 'invalid' };
      const checked = signer.verify(token.slice(dot + 1), { owner: username, fileId: `fp.${grantId}` });
      const grant = grants.get(grantId);
      // The signer checks expiry before owner; the grant tells whose expired token this is.
      if (!checked.ok) {
        const expiredOwn = checked.reason === 'expired' && grant !== undefined && grant.username === username;
        return { ok: false, reason: expiredOwn ? 'expired' : 'invalid' };
      }
      if (grant === undefined || grant.username !== username) return { ok: false, reason: 'invalid' };
      if (!isLive(grant)) return { ok: false, reason: 'expired' };
      return { ok: true, grant: { ...grant } };
    },

    revoke(grantId) {
      const grant = grants.get(grantId);
      grants.delete(grantId);
      return grant !== undefined && isLive(grant);
    },

    revokeWhere({ username, server }) {
      let count = 0;
      for (const [id, grant] of grants) {
        if (grant.username !== username || (server !== undefined && grant.server !== server)) continue;
        if (isLive(grant)) count += 1;
        grants.delete(id);
      }
      return count;
    },

    grants(username) {
      prune();
      return [...grants.values()].filter((g) => g.username === username && isLive(g)).map((g) => ({ ...g }));
    },
  };
}
