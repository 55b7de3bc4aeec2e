// Follows one call's server-sent events (GET /api/calls/:id/events). Every event type is its own
// SSE `event:` name, so each gets a listener. The stream closes on the terminal event; without
// that EventSource would reconnect and receive the 204 that tells it to stop.
import { CALL_EVENT_TYPES, type CallEvent, TERMINAL_EVENTS } from '@ferry/contract';

export function followCall(
  callId: string,
  onEvent: (event: CallEvent) => void,
  onLost: () => void,
): () => void {
  const source = new EventSource(`/api/calls/${encodeURIComponent(callId)}/events`);
  let lastSeq = 0;
  let closed = false;
  const close = () => {
    closed = true;
    source.close();
  };
  const handle = (message: MessageEvent<string>) => {
    let event: CallEvent;
    try {
      event = JSON.parse(message.data) as CallEvent;
    } catch {
      return;
    }
    // A reconnect replays from Last-Event-ID; never apply an event twice.
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    onEvent(event);
    if (TERMINAL_EVENTS.has(event.type)) close();
  };
  for (const type of CALL_EVENT_TYPES) source.addEventListener(type, handle as EventListener);
  source.onerror = () => {
    // CLOSED: the server answered with an error status or 204; the caller fetches the outcome.
    if (!closed && source.readyState === EventSource.CLOSED) {
      closed = true;
      onLost();
    }
  };
  return close;
}
