// The Content-Security-Policy an MCP App runs under (ext-apps spec, "UI Resource Format" and
// "Sandbox proxy"): built from the domains its ui:// resource declares, the spec's restrictive
// default for everything it does not. The sandbox listener sends it as a header on the proxy page,
// and the proxy repeats it in a <meta> of the app's document: a srcdoc frame inherits the header's
// policy, and a policy can only be tightened by another, never loosened.

/** What a resource's `_meta.ui.csp` may declare. */
export interface AppCspDomains {
  connectDomains?: readonly string[];
  resourceDomains?: readonly string[];
  frameDomains?: readonly string[];
  baseUriDomains?: readonly string[];
}

const DOMAIN_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/**
 * One origin, `*.` allowed as the first label and `*` as the port: nothing that could end a
 * directive (`;`, `,`), add a keyword (quotes) or a second source (whitespace).
 */
const ORIGIN_SOURCE =
  /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::(?:\d{1,5}|\*))?\/?$/;

function isAllowedCspSource(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && ORIGIN_SOURCE.test(value);
}

export type ParsedCspDomains =
  | { ok: true; domains: AppCspDomains; dropped: string[] }
  | { ok: false; error: string };

/**
 * Reads declared domains (the proxy page's `csp` query parameter, JSON). Entries that are not a
 * plain origin are dropped, never passed on: the spec lets a host restrict further, not loosen.
 */
export function parseCspDomains(text: string | undefined): ParsedCspDomains {
  if (text === undefined || text === '') return { ok: true, domains: {}, dropped: [] };
  if (text.length > 8192) return { ok: false, error: 'csp: longer than 8192 characters' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'csp: not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: 'csp: expected an object of domain lists' };
  }
  const domains: AppCspDomains = {};
  const dropped: string[] = [];
  for (const field of DOMAIN_FIELDS) {
    const list = (raw as Record<string, unknown>)[field];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length > 64)
      return { ok: false, error: `csp.${field}: expected a list` };
    domains[field] = list.filter((entry) => {
      const ok = isAllowedCspSource(entry);
      if (!ok) dropped.push(String(entry).slice(0, 100));
      return ok;
    });
  }
  return { ok: true, domains, dropped };
}

const sources = (list: readonly string[] | undefined) => (list ?? []).filter(isAllowedCspSource);

/**
 * The app's policy. Without declarations it is the spec's restrictive default (no network, no
 * frames, no plugins); `form-action 'none'` goes beyond it, since a form could post data anywhere.
 */
export function buildAppCsp(declared: AppCspDomains = {}): string {
  const resource = sources(declared.resourceDomains);
  const connect = sources(declared.connectDomains);
  const frame = sources(declared.frameDomains);
  const base = sources(declared.baseUriDomains);
  const join = (...parts: string[]) => parts.filter(Boolean).join(' ');
  return [
    "default-src 'none'",
    join('script-src', "'self'", "'unsafe-inline'", ...resource),
    join('style-src', "'self'", "'unsafe-inline'", ...resource),
    join('img-src', "'self'", 'data:', 'blob:', ...resource),
    join('font-src', "'self'", 'data:', ...resource),
    join('media-src', "'self'", 'data:', 'blob:', ...resource),
    join('connect-src', ...(connect.length ? connect : ["'none'"])),
    join('frame-src', ...(frame.length ? frame : ["'none'"])),
    join('base-uri', ...(base.length ? base : ["'self'"])),
    "object-src 'none'",
    "form-action 'none'",
  ].join('; ');
}
