// Back from a server's authorization server: Ferry's callback sent the browser to
// `?oauth=connected|declined&server=<name>` (apps/ferry/src/routes/oauth.ts). Read once, then taken
// off the address bar (history.replaceState: no reload, no new history entry), so a reload or a
// shared link does not announce it again.
import { useEffect, useState } from 'react';

export interface OAuthReturn {
  outcome: 'connected' | 'declined';
  server: string;
}

/** The outcome in `search`, if it names one; anything else there is left alone. */
export function readOAuthReturn(search: string): OAuthReturn | null {
  const params = new URLSearchParams(search);
  const outcome = params.get('oauth');
  const server = params.get('server');
  if ((outcome !== 'connected' && outcome !== 'declined') || !server) return null;
  return { outcome, server };
}

/** `search` without the two parameters, as `?…` or ''. */
export function withoutOAuthReturn(search: string): string {
  const params = new URLSearchParams(search);
  params.delete('oauth');
  params.delete('server');
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}

/** The outcome the page was opened with (null if none), and a way to dismiss its message. */
export function useOAuthReturn(): [OAuthReturn | null, () => void] {
  const [result, setResult] = useState(() => readOAuthReturn(window.location.search));
  useEffect(() => {
    const { pathname, search, hash } = window.location;
    if (readOAuthReturn(search) === null) return;
    window.history.replaceState(window.history.state, '', `${pathname}${withoutOAuthReturn(search)}${hash}`);
  }, []);
  return [result, () => setResult(null)];
}
