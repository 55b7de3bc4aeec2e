// The typed event stream of one tool call. The API and the web app subscribe to it (server-sent
// events) and may replay it later by call id, so every event carries the call id, a `seq` that
// grows by one per event of that call (gaps mean lost events) and an ISO timestamp. The events'
// shapes are the contract's (the web app reads them too); this module stamps and delivers them.
import type { CallEvent, CallEventBody } from '@ferry/contract';

export interface CallEventSink {
  readonly callId: string;
  /** Stamps `callId`, `seq` and `at`, hands the event to the subscriber and returns it. */
  emit(body: CallEventBody): CallEvent;
}

export interface CallEventSinkOptions {
  callId: string;
  emit: (event: CallEvent) => void;
  /** Epoch milliseconds. @default Date.now */
  now?: () => number;
}

/**
 * One sink per call. A subscriber that throws must not break the call it watches, so its errors
 * are swallowed here (the subscriber owns its own logging).
 */
export function createCallEventSink(options: CallEventSinkOptions): CallEventSink {
  const now = options.now ?? Date.now;
  let seq = 0;
  return {
    callId: options.callId,
    emit(body) {
      seq += 1;
      const event = { ...body, callId: options.callId, seq, at: isoAt(now()) } as CallEvent;
      try {
        options.emit(event);
      } catch {
        // see above
      }
      return event;
    },
  };
}

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond: the events of a call (and of
 * calls running together) mostly fall in the same one, and formatting costs more than the rest
 * of stamping an event.
 */
let lastMs = Number.NaN;
let lastIso = '';
function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
