// The link of a URL-mode elicitation (SEP-1036) as a person should judge it before opening it: the
// web app and the CLI both show the full URL with its host set apart (subdomain spoofing), and warn
// about what MCP's "Safe URL Handling" calls ambiguous. Only http(s) links can be opened at all: a
// `javascript:`, `data:` or `file:` URL is shown as text and can only be declined. Pure string work:
// nothing here fetches the URL.

export type ElicitationLink =
  | {
      ok: true;
      /** The URL as the browser will open it (parsed and serialized: what is shown is what opens). */
      href: string;
      /** The host as the browser will reach it (punycode for an international name). */
      host: string;
      /** `href` cut around its host, for showing the host set apart inside the full URL. */
      parts: { before: string; host: string; after: string };
      /** Said plainly, for the person deciding. Empty when nothing looks off. */
      warnings: string[];
    }
  | { ok: false; reason: string };

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function inspectElicitationLink(url: string): ElicitationLink {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'it is not a valid URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return { ok: false, reason: `it is a ${parsed.protocol} link, not a web page` };
  const host = parsed.hostname;
  const warnings: string[] = [];
  if (host.split('.').some((label) => label.startsWith('xn--')))
    warnings.push('The address uses an international (punycode) name, which can imitate another site.');
  if (parsed.username !== '' || parsed.password !== '')
    warnings.push(`The part before "@" is not the site: the link goes to ${host}.`);
  if (parsed.protocol === 'http:' && !LOOPBACK.has(host))
    warnings.push('The link is not encrypted (http, not https).');
  // A server must not smuggle control or invisible characters into what the user reads.
  if (/[\p{Cc}\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u.test(url))
    warnings.push('The link contains invisible or control characters.');
  const href = parsed.href;
  // The host follows "scheme://" and any "user:password@"; hostname is serialized as in href.
  const authority = href.slice(parsed.protocol.length + 2);
  const start = parsed.protocol.length + 2 + authority.slice(0, authority.indexOf('/')).lastIndexOf('@') + 1;
  const end = start + host.length;
  const parts = { before: href.slice(0, start), host: href.slice(start, end), after: href.slice(end) };
  return { ok: true, href, host, parts, warnings };
}
