// One Unix socket per user, `<dir>/<username>.sock`, serving the same endpoint as Ferry's HTTP
// routes, for sandboxed tool servers that have no network (the socket is bound into the sandbox).
// The socket is world-connectable (0666) because a sandbox may run under another uid; what guards
// the files is the token, which must still be the socket user's. A URL path ending in /mcp or
// /compat picks the surface, so a client can keep the path of the HTTP URL it was given.
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { isValidUsername } from '@ferry/contract';
import type { ProviderEndpoint } from './provider-endpoint.js';

/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
export const MAX_SOCKET_PATH_BYTES = 107;

export interface ProviderSocketsOptions {
  /** Created with mode 0711 when missing: others may reach a socket by name, not list the users. */
  dir: string;
  endpoint: ProviderEndpoint;
}

export interface ProviderSockets {
  /** The user's socket path, listening once this resolves; the same path on every call. */
  socketFor(username: string): Promise<string>;
  /** Stops every socket and removes the files. */
  close(): Promise<void>;
}

export function createProviderSockets(options: ProviderSocketsOptions): ProviderSockets {
  const listening = new Map<string, Promise<{ path: string; server: Server }>>();
  let closed = false;

  const open = async (username: string) => {
    const path = join(options.dir, `${username}.sock`);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(
        `[file-provider] socket path ${path} is ${Buffer.byteLength(path)} bytes; Unix sockets allow ${MAX_SOCKET_PATH_BYTES}: choose a shorter socket directory`,
      );
    }
    if ((await mkdir(options.dir, { recursive: true, mode: 0o711 })) !== undefined) {
      await chmod(options.dir, 0o711); // mkdir's mode passes through the umask
    }
    await removeStaleSocket(path);
    const server = createServer((req, res) => {
      const pathname = new URL(req.url ?? '/', 'http://socket.invalid').pathname.replace(/\/+$/, '');
      const compat = pathname === '/compat' || pathname.endsWith('/compat');
      if (!compat && !(pathname === '/mcp' || pathname.endsWith('/mcp'))) {
        res
          .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Not found: POST …/mcp or …/compat\n');
        return;
      }
      options.endpoint.handle(req, res, { username, compat }).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(path, 0o666);
    return { path, server };
  };

  return {
    async socketFor(username) {
      if (closed) throw new Error('[file-provider] sockets are closed');
      if (!isValidUsername(username))
        throw new Error(`[file-provider] not a username: ${JSON.stringify(username)}`);
      let entry = listening.get(username);
      if (entry === undefined) {
        entry = open(username);
        listening.set(username, entry);
        // A failed open is forgotten, so a later call may try again.
        entry.catch(() => listening.delete(username));
      }
      return (await entry).path;
    },

    async close() {
      closed = true;
      const entries = await Promise.allSettled(listening.values());
      listening.clear();
      await Promise.all(
        entries.map(async (settled) => {
          if (settled.status !== 'fulfilled') return;
          const { server, path } = settled.value;
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          await unlink(path).catch(() => undefined);
        }),
      );
    },
  };
}

/** A socket file left by a process that died; one that still answers belongs to a live server. */
async function removeStaleSocket(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return;
  if (!stat.isSocket()) throw new Error(`[file-provider] ${path} exists and is not a socket`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`[file-provider] ${path} is in use by another process`);
  await unlink(path);
}
