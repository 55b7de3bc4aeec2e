// Which web origins a server's v2 `canvas` envelopes may be framed from (v2 §3: "allowlist
// origins"). An origin is what a browser compares: scheme, host and port. A remote server's own
// origin is allowed unless its config says otherwise; a local (stdio) server has no origin of its
// own, so it frames nothing until `canvasOrigins` names one.
import type { ServerConfig } from './server-config.js';

export type OriginCheck = { ok: true; origin: string } | { ok: false; problem: string };

/**
 * Reads one `canvasOrigins` entry: `http(s)://host[:port]`, with at most a trailing `/`. Returns
 * it as the browser spells it (lower-case host, default port dropped), or what is wrong with it.
 */
export function parseOrigin(value: string): OriginCheck {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return {
      ok: false,
      problem: `"${value}" is not an origin: write scheme://host[:port], e.g. https://dash.example.com`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `"${value}" is not an http(s) origin` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      problem: `"${value}" has a user name or password: an origin is scheme://host[:port]`,
    };
  }
  // `https://a.example/` parses with pathname '/', as does `https://a.example`: both are the origin.
  const extra =
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    value.endsWith('#') ||
    value.endsWith('?');
  if (extra) {
    return {
      ok: false,
      problem: `"${value}" has a path, query or fragment: an origin is scheme://host[:port] only ("${url.origin}")`,
    };
  }
  return { ok: true, origin: url.origin };
}

/** The origins `server`'s canvases may be framed from: its `canvasOrigins`, else its defaults. */
export function canvasOriginsOf(server: ServerConfig): readonly string[] {
  if (server.canvasOrigins !== undefined) return server.canvasOrigins;
  return server.transport === 'stdio' ? [] : [new URL(server.url).origin];
}
