// A remote MCP server that wants the user's own authorization (E_AUTH_REQUIRED, docs/oauth.md):
// a "Connect" link to Ferry's start route, which sends the browser to the server's authorization
// server and, once the user approved or declined, back here, where OAuthReturnNotice says how it
// went. When connected: a Disconnect button, which revokes the tokens. No token ever reaches the
// browser. Shown by the tool runner (listing the tools), a call's result and a chat tool card.
import type { OAuthConnectionDto, OAuthConnectionList } from '@ferry/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import type { OAuthReturn } from './oauth-return';
import { withoutOAuthReturn } from './oauth-return';
import './servers.css';

/** The start route, asked to bring the browser back to this page (without a previous outcome). */
function connectHref(connectUrl: string): string {
  const back = `${window.location.pathname}${withoutOAuthReturn(window.location.search)}`;
  return `${connectUrl}?returnTo=${encodeURIComponent(back || '/')}`;
}

export function ConnectPrompt({
  server,
  connectUrl,
  scope,
  autoFocus = false,
}: {
  server: string;
  connectUrl: string;
  /** The access the server asked for, when it said (a step-up names more than was granted). */
  scope?: string | undefined;
  /** Takes focus when shown: the control the user needs next (after Disconnect removed theirs). */
  autoFocus?: boolean;
}) {
  const link = useRef<HTMLAnchorElement>(null);
  useEffect(() => {
    if (autoFocus) link.current?.focus();
  }, [autoFocus]);
  return (
    <p className="connect-prompt" role="alert" data-testid="connect-prompt">
      <span>
        <strong>{server}</strong> needs you to connect your account before its tools can be used
        {scope ? ` (access asked for: ${scope})` : ''}.
      </span>{' '}
      <a ref={link} className="button primary" href={connectHref(connectUrl)} data-testid="connect-server">
        Connect {server}
      </a>
    </p>
  );
}

/** How the authorization the user just came back from went; dismissable. */
export function OAuthReturnNotice({ result, onDismiss }: { result: OAuthReturn; onDismiss(): void }) {
  const connected = result.outcome === 'connected';
  return (
    <div
      className={`oauth-notice ${result.outcome}`}
      role="status"
      data-testid="oauth-notice"
      data-outcome={result.outcome}
    >
      <span>
        {connected ? (
          <>
            Connected <strong>{result.server}</strong> with your account.
          </>
        ) : (
          <>
            Not connected: access to <strong>{result.server}</strong> was declined.
          </>
        )}
      </span>
      <button type="button" className="ghost small" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

/**
 * The user's connection to one remote server: connected (with Disconnect), waiting for the user to
 * connect (Connect), or nothing (never asked, or not an OAuth server).
 */
export function ServerConnection({ server, onChange }: { server: string; onChange?: () => void }) {
  const [connection, setConnection] = useState<OAuthConnectionDto | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    let current = true;
    api<OAuthConnectionList>('/api/oauth').then(
      (list) => {
        if (current) setConnection(list.items.find((item) => item.server === server));
      },
      () => {
        if (current) setConnection(undefined);
      },
    );
    return () => {
      current = false;
    };
  }, [server]);
  useEffect(() => load(), [load]);

  // The server asked for authorization and Ferry has none that works (a call failed, or the user
  // declined): Connect, even though its tools may still be listed from before.
  if (connection?.state === 'needs-connect') {
    return <ConnectPrompt server={server} connectUrl={connection.connectUrl} scope={connection.scope} />;
  }
  if (connection?.state !== 'connected') return null;
  const disconnect = async () => {
    setBusy(true);
    try {
      await api(`/api/oauth/${encodeURIComponent(server)}`, { method: 'DELETE' });
    } finally {
      setBusy(false);
      load();
      onChange?.();
    }
  };
  return (
    <p className="muted small" data-testid="server-connection">
      Connected to {server} with your account{connection.scope ? ` (${connection.scope})` : ''}.{' '}
      <button type="button" onClick={() => void disconnect()} disabled={busy} data-testid="disconnect-server">
        Disconnect<span className="sr-only"> {server}</span>
      </button>
    </p>
  );
}
