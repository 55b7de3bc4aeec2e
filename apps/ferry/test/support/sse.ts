// Ferry's server-sent event streams as tests read them: a call's events (GET /api/calls/{id}/events,
// id = seq) and the user's stream (GET /api/events, id = id). Every event's SSE id and name must
// equal its body's id and type.
import { get, type IncomingMessage } from 'node:http';
import { expect } from 'vitest';
import { parseStream, type SseEvent } from '../../src/cli/sse-reader.js';

/** GETs `path` on `base`; resolves with the response once its headers are in. */
export function openSse(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(new URL(path, base), { headers }, resolve).on('error', reject);
  });
}

/**
 * The JSON events of `response` until the stream ends, or until `until` says so (then the
 * connection is dropped). `idOf` names the field the SSE id carries.
 */
export async function collectSse<T extends { type: string }>(
  response: IncomingMessage,
  idOf: (body: T) => number,
  until: (event: T, all: T[]) => boolean = () => false,
): Promise<T[]> {
  const events: T[] = [];
  await parseStream(response, (event: SseEvent) => {
    const body = JSON.parse(event.data) as T;
    expect(event.id).toBe(String(idOf(body)));
    expect(event.event).toBe(body.type);
    events.push(body);
    if (until(body, events)) response.destroy();
  }).catch(() => undefined);
  return events;
}
