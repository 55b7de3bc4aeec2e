// MCP Apps views (SEP-1865): the `ui://` resource a tool declares in `_meta.ui.resourceUri`,
// read with `resources/read` over the user's own connection to that server and kept in a small
// cache. Only a URI one of the server's tools declares is read (an app cannot make Ferry fetch
// any resource of the server through this door), and only a `text/html;profile=mcp-app` answer
// within `maxHtmlBytes` is handed on.
//
// Cache: keyed by server, user, the server's serverInfo (name + version from initialize) and
// URI. The user is in the key because a local server runs once per user and a remote one may
// answer per user (OAuth): one user's view must never be served to another. Dropped for a whole
// server on notifications/tools/list_changed or resources/list_changed from any of its
// connections, and when a connection reports another serverInfo than the cached entries (a
// reconnect to an upgraded server). Bounded in bytes: the oldest entries go first.
import {
  FerryError,
  isUiUri,
  MCP_APP_MIME_TYPE,
  readToolUi,
  readUiResourceMeta,
  type UiResource,
} from '@ferry/contract';
import type { ConnectionPool, ResourceContents, ToolConnection } from '../connections/connection.js';
import type { ConnectionEvent } from '../connections/connection-events.js';

/** 5 MiB: a view is one HTML document with its script inline; past this it is not a view. */
export const DEFAULT_MAX_UI_HTML_BYTES = 5 * 1024 * 1024;
/** 32 MiB of cached HTML across every server and user. */
export const DEFAULT_MAX_UI_CACHE_BYTES = 32 * 1024 * 1024;

export interface UiResourceReaderOptions {
  pool: Pick<ConnectionPool, 'get'>;
  /** Largest view accepted (UTF-8 bytes of its HTML). @default DEFAULT_MAX_UI_HTML_BYTES */
  maxHtmlBytes?: number;
  /** Most HTML kept in the cache. @default DEFAULT_MAX_UI_CACHE_BYTES */
  maxCacheBytes?: number;
}

export interface UiResourceReader {
  /**
   * The view `uri` of `server` for `username`. Throws FerryError: E_NOT_FOUND (no tool of the
   * server declares it), E_TOOL_ERROR (the server's answer is not one view of the MCP Apps type),
   * E_RESULT_TOO_LARGE (over maxHtmlBytes), or what the connection fails with.
   */
  read(
    server: string,
    username: string,
    uri: string,
    options?: { signal?: AbortSignal },
  ): Promise<UiResource>;
  /** Hand every connection event of the pool here: list changes drop the server's entries. */
  onConnectionEvent(event: ConnectionEvent): void;
  /** Entries cached now (for tests and metrics). */
  readonly size: number;
}

interface Entry {
  server: string;
  version: string;
  bytes: number;
  value: Promise<UiResource>;
}

export function createUiResourceReader(options: UiResourceReaderOptions): UiResourceReader {
  const maxHtmlBytes = options.maxHtmlBytes ?? DEFAULT_MAX_UI_HTML_BYTES;
  const maxCacheBytes = options.maxCacheBytes ?? DEFAULT_MAX_UI_CACHE_BYTES;
  // A Map keeps insertion order: re-inserting on a hit makes the first key the least recent.
  const entries = new Map<string, Entry>();
  let cachedBytes = 0;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    cachedBytes -= entry.bytes;
  };
  const dropServer = (server: string, keepVersion?: string) => {
    for (const [key, entry] of entries) {
      if (entry.server === server && entry.version !== keepVersion) drop(key);
    }
  };

  return {
    get size() {
      return entries.size;
    },
    onConnectionEvent(event) {
      if (event.type === 'tools-changed' || event.type === 'resources-changed') dropServer(event.server);
    },
    async read(server, username, uri, readOptions = {}) {
      if (!isUiUri(uri)) throw new FerryError('E_INVALID_INPUT', `Not a ui:// URI: ${quote(uri)}`, { uri });
      const connection = await options.pool.get(server, username);
      const tools = await connection.listTools();
      if (!tools.some((tool) => readToolUi(tool._meta)?.resourceUri === uri)) {
        throw new FerryError(
          'E_NOT_FOUND',
          `No tool of MCP server "${server}" declares the view ${quote(uri)}`,
          {
            server,
            uri,
          },
        );
      }
      const info = connection.serverInfo;
      const version = info ? `${info.name}@${info.version}` : '';
      // Another version answers now: what the old one served is stale for every user.
      dropServer(server, version);
      const key = JSON.stringify([server, username, version, uri]);
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      const value = readView(connection, server, uri, maxHtmlBytes, readOptions.signal);
      const entry: Entry = { server, version, bytes: 0, value };
      entries.set(key, entry);
      try {
        const view = await value;
        // Still ours (not dropped by a list change while reading): count it, then keep within bounds.
        if (entries.get(key) === entry) {
          entry.bytes = Buffer.byteLength(view.html);
          cachedBytes += entry.bytes;
          for (const oldest of entries.keys()) {
            if (cachedBytes <= maxCacheBytes || oldest === key) break;
            drop(oldest);
          }
          if (cachedBytes > maxCacheBytes) drop(key);
        }
        return view;
      } catch (error) {
        if (entries.get(key) === entry) drop(key);
        throw error;
      }
    },
  };
}

async function readView(
  connection: ToolConnection,
  server: string,
  uri: string,
  maxHtmlBytes: number,
  signal: AbortSignal | undefined,
): Promise<UiResource> {
  const contents = await connection.readResource(uri, signal ? { signal } : {});
  // One content for the URI asked for; a server that answers with others beside it is fine.
  const content: ResourceContents | undefined =
    contents.find((item) => item.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!content) {
    throw new FerryError(
      'E_TOOL_ERROR',
      `MCP server "${server}" returned no content for the view ${quote(uri)}`,
      {
        server,
        uri,
      },
    );
  }
  if (!isMcpAppMimeType(content.mimeType)) {
    throw new FerryError(
      'E_TOOL_ERROR',
      `The view ${quote(uri)} of MCP server "${server}" has the type ${quote(content.mimeType ?? '(none)')}; an MCP App view must be ${MCP_APP_MIME_TYPE}`,
      { server, uri, mimeType: content.mimeType ?? null, expected: MCP_APP_MIME_TYPE },
    );
  }
  const tooLarge = (bytes: number) =>
    new FerryError(
      'E_RESULT_TOO_LARGE',
      `The view ${quote(uri)} of MCP server "${server}" is ${bytes} bytes; at most ${maxHtmlBytes} are accepted`,
      { server, uri, bytes, limit: maxHtmlBytes },
    );
  let html: string;
  if ('text' in content) {
    const bytes = Buffer.byteLength(content.text);
    if (bytes > maxHtmlBytes) throw tooLarge(bytes);
    html = content.text;
  } else {
    // Checked before decoding: base64 is 4 characters for 3 bytes.
    const estimate = Math.floor((content.blob.length * 3) / 4);
    if (estimate > maxHtmlBytes + 2) throw tooLarge(estimate);
    const bytes = Buffer.from(content.blob, 'base64');
    if (bytes.length > maxHtmlBytes) throw tooLarge(bytes.length);
    html = bytes.toString('utf8');
  }
  const ui = isObject(content._meta) ? content._meta.ui : undefined;
  return { uri, mimeType: MCP_APP_MIME_TYPE, html, meta: readUiResourceMeta(ui) };
}

/** `text/html;profile=mcp-app`, case and spaces around `;` aside (media type parameters allow both). */
export function isMcpAppMimeType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [type, ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'text/html') return false;
  return params.some((param) => param.replace(/\s*=\s*/, '=').replace(/"/g, '') === 'profile=mcp-app');
}

function quote(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
