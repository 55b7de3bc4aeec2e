import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';

// Ferry marks some outgoing tools/call requests with private `_meta` keys (`dev.ferry/…`): a call
// tag, the tasks opt-in. The transport taps take them out before the request reaches the wire and
// remember the request id, to read that request's answer.

/**
 * A tools/call request without its private `key`: `value` is what the key held, `id` the request
 * id; `message` unchanged (and no `id`) when the key is absent. An emptied `_meta` is dropped.
 */
export function takeCallMeta(
  message: JSONRPCMessage,
  key: string,
): { message: JSONRPCMessage; id?: RequestId; value?: unknown; meta?: Record<string, unknown> } {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return { message };
  const params = message.params as { _meta?: Record<string, unknown> } | undefined;
  const meta = params?._meta;
  if (meta === undefined || !(key in meta)) return { message };
  const { [key]: value, ...rest } = meta;
  const { _meta: _dropped, ...others } = params as Record<string, unknown>;
  const cleaned = Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
  return { message: { ...message, params: cleaned } as JSONRPCMessage, id: message.id, value, meta: rest };
}

/** Adds to a Map kept to `max` entries, oldest first out: requests whose answer never comes (cancelled) never leave it. */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, max = 1024): void {
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
