// The HTTP client of bench/load.ts: one Ferry instance, spoken to as the authenticating proxy in
// front of it would (X-Forwarded-User + the shared secret), over loopback.
import { createHash } from 'node:crypto';
import { type IncomingMessage, request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { parseStream } from '../apps/ferry/src/cli/sse-reader.js';

/** A request that receives nothing for this long fails (a stuck instance must not hang the bench). */
const REQUEST_TIMEOUT_MS = 120_000;

export interface LoadApi {
  send(
    method: string,
    path: string,
    user: string,
    body?: string | Buffer,
  ): Promise<{ status: number; text: string }>;
  /** Follows a call's event stream to its end: the event types seen, in order. */
  events(callId: string, user: string): Promise<string[]>;
  /** GET `path`, hashing the body as it streams in. */
  digest(path: string, user: string): Promise<{ status: number; sha256: string }>;
}

export function createLoadApi(base: string, proxySecret: string): LoadApi {
  const open = (method: string, path: string, user: string, body?: string | Buffer) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const headers: Record<string, string> = {
        'x-forwarded-user': user,
        'x-ferry-proxy-secret': proxySecret,
        'x-ferry-session': `session-${user}`,
      };
      if (body !== undefined) {
        headers['content-type'] = typeof body === 'string' ? 'application/json' : 'application/octet-stream';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const req = request(new URL(path, base), { method, headers }, resolve);
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new Error(`${method} ${path}: nothing for ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    async send(method, path, user, body) {
      const res = await open(method, path, user, body);
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
    },
    async events(callId, user) {
      const res = await open('GET', `/api/calls/${callId}/events`, user);
      if (res.statusCode !== 200) {
        res.resume();
        throw new Error(`events ${res.statusCode}`);
      }
      const types: string[] = [];
      await parseStream(res, (event) => types.push(event.event));
      return types;
    },
    async digest(path, user) {
      const res = await open('GET', path, user);
      const hash = createHash('sha256');
      await pipeline(res, hash);
      return { status: res.statusCode ?? 0, sha256: hash.digest('hex') };
    },
  };
}
