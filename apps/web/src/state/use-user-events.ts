// The user-wide event stream (GET /api/events): every event of the user's calls, from any tab,
// the chat or the CLI (`event: call`, data `{type:'call', event}`), and `files_changed`. It keeps
// My Files live and brings elicitations to this tab. Without the stream (an older server), the
// app refreshes My Files after its own uploads and calls, and polls while the tab is visible; the
// status bar says which mode is on.
import { CALL_EVENT_TYPES, type CallEvent } from '@ferry/contract';
import { useEffect, useRef, useState } from 'react';
import type { FilesChangedEvent, UserCallEvent } from '../api/types';

export type UserStreamState = 'connecting' | 'live' | 'unavailable';

/** Unwraps what the stream sends into a call event or a files_changed event. */
export function readUserEvent(data: unknown): CallEvent | FilesChangedEvent | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const event = data as Partial<UserCallEvent> & { type?: string };
  if (event.type === 'call') return event.event && typeof event.event === 'object' ? event.event : undefined;
  if (event.type === 'files_changed') return data as FilesChangedEvent;
  if ((CALL_EVENT_TYPES as readonly string[]).includes(event.type ?? '') && 'callId' in event) {
    return data as CallEvent;
  }
  return undefined;
}

export function useUserEvents(onEvent: (event: CallEvent | FilesChangedEvent) => void): UserStreamState {
  const [state, setState] = useState<UserStreamState>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;

  useEffect(() => {
    // A 404 (no such route) or any non-SSE answer makes EventSource fail for good (CLOSED, no
    // retry); a dropped connection leaves it CONNECTING and it retries by itself, sending
    // Last-Event-ID so the server replays what was missed.
    const source = new EventSource('/api/events');
    const receive = (message: MessageEvent<string>) => {
      try {
        const event = readUserEvent(JSON.parse(message.data));
        if (event) handler.current(event);
      } catch {
        // not JSON: ignore
      }
    };
    for (const type of ['call', 'files_changed', ...CALL_EVENT_TYPES]) {
      source.addEventListener(type, receive as EventListener);
    }
    source.onmessage = receive;
    source.onopen = () => setState('live');
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'unavailable' : 'connecting');
    return () => source.close();
  }, []);

  return state;
}
