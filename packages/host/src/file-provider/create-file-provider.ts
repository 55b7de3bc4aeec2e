// The user's file provider, assembled: tokens, the endpoint (Ferry's HTTP routes and the sockets
// share it), one Unix socket per user for sandboxed servers, and the callback stream the host turns
// into call events and the app into audit lines. The app makes one and hands it to the host
// (HostOptions.fileProvider) and to its routes (`endpoint.handle`).
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileProviderPath, isValidUsername } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import { createProviderEndpoint, type ProviderEndpoint } from './provider-endpoint.js';
import { createProviderSockets, type ProviderSockets } from './provider-sockets.js';
import { createProviderTokens, type ProviderTokens } from './provider-tokens.js';
import type { FileProviderSettings, ProviderCallbackEvent, ProviderScope } from './provider-types.js';

export interface FileProviderOptions {
  settings: FileProviderSettings;
  files: FileStore;
  /** Host directory of the per-user workspaces (the host's `workspacesRoot`). */
  workspacesRoot: string;
  /** Ferry's HTTP base as servers reach it, without a trailing slash (e.g. `http://127.0.0.1:8080`). */
  baseUrl: () => string;
  /**
   * Where the users' sockets live. Unix socket paths hold at most 107 bytes, so keep it short.
   * @default a new directory under os.tmpdir() (`ferry-fp-XXXXXX`, mode 0700), removed at close
   */
  socketDir?: string;
  /** Every callback, for the audit log (never file contents). A throwing sink is ignored. */
  audit?(event: ProviderCallbackEvent): void;
}

export interface FileProvider {
  readonly settings: FileProviderSettings;
  readonly tokens: ProviderTokens;
  /** Serves one request of the user's endpoint (HTTP route or socket). */
  readonly endpoint: ProviderEndpoint;
  /** The user's endpoint URL: `<base>/api/file-provider/<username>/mcp`, or `/compat`. */
  urlFor(username: string, compat?: boolean): string;
  /** Host path of the user's socket, listening once this resolves. */
  socketFor(username: string): Promise<string>;
  /** Every callback; returns the unsubscribe. A throwing listener is ignored. */
  onCallback(listener: (event: ProviderCallbackEvent) => void): () => void;
  /** Stops the sockets (and removes a socket directory it made). Tokens die with the process. */
  close(): Promise<void>;
}

export function createFileProvider(options: FileProviderOptions): FileProvider {
  const { settings, files } = options;
  const tokens = createProviderTokens({ defaultTtlSeconds: settings.tokenTtlSeconds });
  const listeners = new Set<(event: ProviderCallbackEvent) => void>();
  const deliver = (event: ProviderCallbackEvent) => {
    for (const listener of [...(options.audit ? [options.audit] : []), ...listeners]) {
      try {
        listener(event);
      } catch {
        // A sink's failure must not fail the callback it reports.
      }
    }
  };
  // The real path, as the workspace code uses: a resolved link would otherwise fail the check that
  // a symlink's target stays inside the workspace.
  let workspacesRoot: Promise<string> | undefined;
  const realRoot = () => {
    workspacesRoot ??= realpath(options.workspacesRoot).catch(() => resolve(options.workspacesRoot));
    return workspacesRoot;
  };
  const scopeFor = async (username: string): Promise<ProviderScope> => {
    if (!isValidUsername(username))
      throw new Error(`[ferry/host] not a username: ${JSON.stringify(username)}`);
    return {
      username,
      owner: await files.ensureUser(username),
      workspaceHostDir: join(await realRoot(), username),
      files,
      settings,
    };
  };
  const endpoint = createProviderEndpoint({ tokens, settings, scopeFor, onCallback: deliver });

  let made: string | undefined;
  let sockets: Promise<ProviderSockets> | undefined;
  let closed = false;
  const openSockets = () => {
    sockets ??= (async () => {
      let dir = options.socketDir;
      if (dir === undefined) {
        made = await mkdtemp(join(tmpdir(), 'ferry-fp-'));
        dir = made;
      }
      return createProviderSockets({ dir, endpoint });
    })();
    return sockets;
  };

  return {
    settings,
    tokens,
    endpoint,
    urlFor: (username, compat = false) => `${options.baseUrl()}${fileProviderPath(username, compat)}`,
    async socketFor(username) {
      if (closed) throw new Error('[ferry/host] the file provider is closed');
      return (await openSockets()).socketFor(username);
    },
    onCallback(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      const opened = sockets;
      sockets = undefined;
      if (opened) await (await opened.catch(() => undefined))?.close();
      if (made) await rm(made, { recursive: true, force: true });
    },
  };
}
