// Follows a call's server-sent events, reconnecting with Last-Event-ID when the connection drops
// before the call has settled (a restart of a proxy, a flaky network). 204 = nothing more to send.
import { createParser } from 'eventsource-parser';
import type { ApiClient } from './api-client.js';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface FollowOptions {
  onEvent(event: SseEvent): void;
  /** @default 5 */
  maxReconnects?: number;
  signal?: AbortSignal;
}

const TERMINAL = new Set(['finished', 'failed', 'cancelled']);

export async function followEvents(client: ApiClient, path: string, options: FollowOptions): Promise<void> {
  let lastId: string | undefined;
  let reconnects = 0;
  let terminal = false;
  for (;;) {
    const response = await client.open(path, lastId ? { 'last-event-id': lastId } : {});
    if (response.statusCode === 204) {
      response.resume();
      return;
    }
    const abort = () => response.destroy();
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      await parseStream(response, (event) => {
        if (event.id !== undefined) lastId = event.id;
        if (TERMINAL.has(event.event)) terminal = true;
        options.onEvent(event);
      });
    } catch {
      // A dropped connection: reconnect below.
    } finally {
      options.signal?.removeEventListener('abort', abort);
    }
    if (terminal || options.signal?.aborted) return;
    if (++reconnects > (options.maxReconnects ?? 5)) throw new Error('The event stream keeps dropping');
    await new Promise((resolve) => setTimeout(resolve, 250 * reconnects));
  }
}

/**
 * Reads a text/event-stream body (eventsource-parser: the WHATWG rules, a CRLF split across chunks
 * included) and dispatches each event; `event` defaults to `message`
 * as in EventSource.
 */
export async function parseStream(
  stream: AsyncIterable<unknown>,
  dispatch: (event: SseEvent) => void,
): Promise<void> {
  // The last event ID carries over to later events, as in EventSource (the parser reports only
  // the id an event itself names).
  let lastId: string | undefined;
  const parser = createParser({
    onEvent: (message) => {
      if (message.id !== undefined) lastId = message.id;
      dispatch({
        event: message.event ?? 'message',
        data: message.data,
        ...(lastId === undefined ? {} : { id: lastId }),
      });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of stream)
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true }));
}
