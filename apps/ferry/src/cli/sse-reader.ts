// Follows a call's server-sent events, reconnecting with Last-Event-ID when the connection drops
// before the call has settled (a restart of a proxy, a flaky network). 204 = nothing more to send.
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

/** The text/event-stream format (WHATWG HTML §9.2.6): fields per line, a blank line dispatches. */
export async function parseStream(
  stream: AsyncIterable<unknown>,
  dispatch: (event: SseEvent) => void,
): Promise<void> {
  let buffer = '';
  let data: string[] = [];
  let type = 'message';
  let id: string | undefined;
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0)
          dispatch({ event: type, data: data.join('\n'), ...(id === undefined ? {} : { id }) });
        data = [];
        type = 'message';
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') type = value;
        else if (field === 'id') id = value;
      }
      newline = buffer.search(/\r\n|\r|\n/);
    }
  }
}
