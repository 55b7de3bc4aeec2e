// Who is asking. `local`: the one configured user (the embedded default listens on loopback).
// `proxy`: a reverse proxy in front of Ferry authenticates users and names them in a header; the
// header is believed only from the configured proxy addresses AND with the shared secret the
// proxy adds (`auth.proxySecret`). The address alone is not enough: a sandboxed tool with network
// access reaches Ferry from loopback as well and could name any user. The secret is compared as
// SHA-256 digests in constant time (equal lengths, so the length leaks nothing either) and is
// never put in a message or a log. Either way the name must be a valid username (DESIGN
// "Isolation"): it becomes a path component and a header value further on.
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4 } from 'node:net';
import { FerryError, isValidUsername } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config/app-config.js';
import { unauthorized } from '../http/api-error.js';

const MAX_REMEMBERED_PEERS = 1024;

export interface Identity {
  username: string;
  /** The FileStore owner id of the user. */
  owner: string;
}

export interface Authenticator {
  readonly mode: AuthConfig['mode'];
  /** The request's user; throws ApiError E_UNAUTHORIZED (401). */
  identify(request: FastifyRequest): Promise<Identity>;
  /** The owner id of a username (created on first use). */
  ownerOf(username: string): Promise<string>;
  /** Drops the cached owner id of a deleted user: their next request makes a new, empty user. */
  forget(username: string): void;
}

export function createAuthenticator(config: AuthConfig, files: Pick<FileStore, 'ensureUser'>): Authenticator {
  const owners = new Map<string, Promise<string>>();
  const ownerOf = (username: string) => {
    let owner = owners.get(username);
    if (!owner) {
      owner = files.ensureUser(username);
      owners.set(username, owner);
      owner.catch(() => owners.delete(username));
    }
    return owner;
  };
  const trusted = trustedPeers(config.trustedProxies);
  // The verdict per peer address, as BlockList.check builds a SocketAddress on every call (4% of
  // a small download's CPU). It depends on the address and the fixed config only; bounded.
  const verdicts = new Map<string, boolean>();
  const trustedPeer = (peer: string): boolean => {
    let verdict = verdicts.get(peer);
    if (verdict === undefined) {
      verdict = isTrusted(trusted, peer);
      if (verdicts.size >= MAX_REMEMBERED_PEERS) verdicts.clear();
      verdicts.set(peer, verdict);
    }
    return verdict;
  };
  const secret = config.mode === 'proxy' ? secretDigest(config) : undefined;

  return {
    mode: config.mode,
    ownerOf,
    forget: (username) => owners.delete(username),
    identify: async (request) => {
      if (config.mode === 'local') return { username: config.user, owner: await ownerOf(config.user) };
      const peer = request.socket?.remoteAddress;
      if (!peer || !trustedPeer(peer)) {
        throw unauthorized('Not signed in: requests must come through the authenticating proxy');
      }
      const sent = request.headers[config.proxySecretHeader];
      // Read once, then dropped: nothing later in the request (a log line, a hook) can see it.
      delete request.headers[config.proxySecretHeader];
      if (sent === undefined) {
        throw unauthorized(`Not signed in: the proxy did not send ${config.proxySecretHeader}`);
      }
      if (!secret || typeof sent !== 'string' || !timingSafeEqual(secret, sha256(sent))) {
        throw unauthorized(`Not signed in: ${config.proxySecretHeader} does not match auth.proxySecret`);
      }
      const raw = request.headers[config.header];
      if (raw === undefined) throw unauthorized(`Not signed in: the proxy did not send ${config.header}`);
      if (Array.isArray(raw) || !isValidUsername(raw)) {
        throw unauthorized(`Not signed in: ${config.header} does not hold a valid username`);
      }
      return { username: raw, owner: await ownerOf(raw) };
    },
  };
}

function secretDigest(config: AuthConfig): Buffer {
  // The config schema refuses proxy mode without a secret; this guards a hand-made config.
  if (!config.proxySecret) {
    throw new FerryError(
      'E_INVALID_INPUT',
      'proxy mode requires auth.proxySecret (or the FERRY_PROXY_SECRET environment variable)',
      { field: 'auth.proxySecret' },
    );
  }
  return sha256(config.proxySecret);
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The addresses and CIDR blocks of a config list (already validated by the schema). */
export function trustedPeers(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

export function isTrusted(list: BlockList, peer: string): boolean {
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
  const address = mapped ?? peer;
  return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}
