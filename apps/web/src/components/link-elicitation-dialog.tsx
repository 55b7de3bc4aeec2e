// A tool asks the user to open a link mid-call (MCP elicitation, URL mode, SEP-1036): a sign-in or
// a payment that must not pass through Ferry. MCP's safe URL handling, as the user sees it: which
// server asks and why, the full URL with its host set apart, warnings for a look-alike or
// unencrypted address; the link opens only when the user clicks it, in a new tab that cannot reach
// back into Ferry (noopener, no referrer). That click is the consent (`accept`); Decline and Cancel
// answer without opening anything. Ferry never fetches the URL itself.
import { inspectElicitationLink } from '@ferry/contract';
import { useMemo } from 'react';
import type { PendingElicitation } from '../lib/elicitation-fields';
import { type ElicitationAction, ElicitationAnswerRow, useElicitationAnswer } from './elicitation-answer';
import { ModalDialog } from './modal-dialog';

export function LinkElicitationDialog({
  request,
  onDone,
}: {
  request: PendingElicitation;
  onDone(elicitationId: string): void;
}) {
  const link = useMemo(() => inspectElicitationLink(request.url ?? ''), [request.url]);
  const { failure, sending, send } = useElicitationAnswer(request, onDone);
  const server = request.server ?? 'A server';

  const answer = (action: ElicitationAction) => send({ action });

  return (
    <ModalDialog
      title="The tool asks you to open a link"
      onClose={() => void answer('cancel')}
      className="elicitation elicitation-link"
    >
      <div className="stack" data-testid="elicitation-link">
        <p className="elicitation-from">
          <strong data-testid="elicitation-server">{server}</strong> asks you to open this link:
        </p>
        <p className="elicitation-message" data-testid="elicitation-reason">
          {request.message}
        </p>
        {link.ok ? (
          <>
            <p className="elicitation-url" data-testid="elicitation-url">
              <code>
                {link.parts.before}
                <mark className="elicitation-host">{link.parts.host}</mark>
                {link.parts.after}
              </code>
            </p>
            <p className="elicitation-site">
              Site: <strong data-testid="elicitation-host">{link.host}</strong>
            </p>
            {link.warnings.length > 0 && (
              <ul className="elicitation-warnings" data-testid="elicitation-warnings">
                {link.warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            )}
            <p className="muted">
              It opens in a new tab only if you click it. What you enter there goes to that site, not through
              Ferry.
            </p>
          </>
        ) : (
          <>
            <p className="elicitation-url" data-testid="elicitation-url">
              <code>{request.url}</code>
            </p>
            <p className="form-error" role="alert">
              Ferry will not open this link: {link.reason}.
            </p>
          </>
        )}
        <ElicitationAnswerRow failure={failure} sending={sending} onAnswer={(action) => void answer(action)}>
          {link.ok && (
            // The user's click opens it (the browser's own navigation) and is the consent.
            <a
              className="button primary"
              href={link.href}
              target="_blank"
              rel="noopener noreferrer"
              referrerPolicy="no-referrer"
              data-testid="elicitation-open"
              aria-disabled={sending || undefined}
              onClick={() => void answer('accept')}
            >
              Open link in a new tab
            </a>
          )}
        </ElicitationAnswerRow>
      </div>
    </ModalDialog>
  );
}
