// Questions tools ask mid-call (MCP elicitation), one dialog at a time. They may arrive twice
// (the call's own stream and the user stream), so they are keyed by id; an answer given anywhere
// (`elicitation_answered`) or the end of the call removes them.
import type { CallEvent } from '@ferry/contract';
import { useCallback, useState } from 'react';
import type { PendingElicitation } from '../lib/elicitation-fields';

export function useElicitations() {
  const [pending, setPending] = useState<PendingElicitation[]>([]);

  const onCallEvent = useCallback((event: CallEvent) => {
    if (event.type === 'elicitation') {
      const { elicitationId } = event;
      const request: PendingElicitation = {
        callId: event.callId,
        elicitationId,
        message: event.message,
        requestedSchema: event.requestedSchema,
        fileFields: event.fileFields,
        ...(event.mode && { mode: event.mode }),
        ...(event.url !== undefined && { url: event.url }),
        ...(event.server !== undefined && { server: event.server }),
      };
      setPending((list) => (list.some((e) => e.elicitationId === elicitationId) ? list : [...list, request]));
    } else if (event.type === 'elicitation_answered') {
      setPending((list) => list.filter((e) => e.elicitationId !== event.elicitationId));
    } else if (event.type === 'finished' || event.type === 'failed' || event.type === 'cancelled') {
      setPending((list) => list.filter((e) => e.callId !== event.callId));
    }
  }, []);

  const done = useCallback((elicitationId: string) => {
    setPending((list) => list.filter((e) => e.elicitationId !== elicitationId));
  }, []);

  return { current: pending[0], onCallEvent, done };
}
