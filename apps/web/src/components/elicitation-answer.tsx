// What both elicitation dialogs (form and link) share: sending the user's answer to the call's
// open question, and the answer row (the send failure, Cancel, Decline, then the dialog's own
// accepting control).
import { type ReactNode, useState } from 'react';
import { api } from '../api/client';
import type { PendingElicitation } from '../lib/elicitation-fields';

export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** `send` posts an answer; `failure` says why the last one could not be sent. */
export function useElicitationAnswer(request: PendingElicitation, onDone: (elicitationId: string) => void) {
  const [failure, setFailure] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const send = async (body: { action: ElicitationAction } & Record<string, unknown>) => {
    setSending(true);
    try {
      await api(
        `/api/calls/${encodeURIComponent(request.callId)}/elicitations/${encodeURIComponent(request.elicitationId)}`,
        { method: 'POST', json: body },
      );
      onDone(request.elicitationId);
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setSending(false);
    }
  };
  return { failure, sending, send };
}

export function ElicitationAnswerRow({
  failure,
  sending,
  onAnswer,
  children,
}: {
  failure: string | null;
  sending: boolean;
  onAnswer(action: 'decline' | 'cancel'): void;
  /** The dialog's accepting control, last in the row. */
  children: ReactNode;
}) {
  return (
    <>
      {failure && (
        <p className="form-error" role="alert">
          Could not send the answer: {failure}
        </p>
      )}
      <div className="row end">
        <button type="button" onClick={() => onAnswer('cancel')} disabled={sending}>
          Cancel
        </button>
        <button type="button" onClick={() => onAnswer('decline')} disabled={sending}>
          Decline
        </button>
        {children}
      </div>
    </>
  );
}
