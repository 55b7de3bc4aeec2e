import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport } from '@modelcontextprotocol/client';
import { rememberBounded, takeCallMeta } from './private-meta.js';

// The server's questions, as they came over the wire, for the elicitation handler.
//
// 1. Raw schemas. The SDK validates an incoming `elicitation/create` (a request on 2025-11-25, an
//    entry of an `input_required` result on 2026-07-28) against its own zod schemas, whose property
//    schemas are plain z.object()s: unknown keywords are stripped, and with them SEP-2356's
//    `x-mcp-file` (the very thing that makes a field a file picker). So the requestedSchema is kept
//    here as it came, for the handler to use instead. The SDK's validation still runs (the request
//    must be a well-formed elicitation); only the extra keywords come from the raw message.
// 2. Which call asks. On 2026-07-28 a question belongs to the tools/call whose result embeds it
//    (multi round-trip requests). The SDK hands the handler only the entry's key, so each outgoing
//    tools/call carries a Ferry-private `_meta` tag (removed before it reaches the wire) and the
//    `input_required` result of that request id names the call for each of its keys. A 2025-11-25
//    `elicitation/create` request names no call: its `call` is undefined.

/** Ferry-private request `_meta` key naming the pipeline call of a tools/call; never sent. */
export const CALL_TAG_META = 'dev.ferry/call';

export interface RawQuestion {
  /** The requestedSchema as sent, when it was an object. */
  schema?: Record<string, unknown>;
  /** The tag of the tools/call the question came with (2026-07-28), else undefined. */
  call?: string;
}

export interface ElicitationTap {
  /**
   * The raw question behind the handler's `ctx.mcpReq.id`: a JSON-RPC request id (2025-11-25) or
   * an `inputRequests` key (2026-07-28, where keys of concurrent calls may repeat: oldest first).
   */
  take(id: RequestId): RawQuestion | undefined;
}

/** Most questions kept unclaimed: a server that floods questions nobody takes cannot grow this. */
const MAX_KEPT = 64;

/** Wraps the transport's `send` and the `onmessage` that `Client.connect` installed; call after connecting. */
export function tapElicitations(transport: Transport): ElicitationTap {
  const byRequest = new Map<RequestId, RawQuestion>();
  const byKey = new Map<string, RawQuestion[]>();
  /** tools/call request ids in flight → their call tag. */
  const tagged = new Map<RequestId, string>();
  let keyed = 0;

  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(untag(message, tagged), options);
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
      rememberBounded(byRequest, message.id, { ...schemaOf(message.params) }, MAX_KEPT);
    } else if (!('method' in message) && 'id' in message && message.id !== undefined) {
      const call = tagged.get(message.id);
      tagged.delete(message.id);
      const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
      if (call !== undefined && result?.resultType === 'input_required' && isObject(result.inputRequests)) {
        for (const [key, entry] of Object.entries(result.inputRequests)) {
          if (!isObject(entry) || entry.method !== 'elicitation/create') continue;
          if (keyed >= MAX_KEPT) dropOldest(byKey);
          else keyed += 1;
          const queue = byKey.get(key) ?? [];
          queue.push({ ...schemaOf(entry.params), call });
          byKey.set(key, queue);
        }
      }
    }
    deliver?.call(transport, message, extra);
  };
  return {
    take(id) {
      const asked = byRequest.get(id);
      if (asked !== undefined) {
        byRequest.delete(id);
        return asked;
      }
      const queue = typeof id === 'string' ? byKey.get(id) : undefined;
      const first = queue?.shift();
      if (queue !== undefined && queue.length === 0) byKey.delete(id as string);
      if (first !== undefined) keyed -= 1;
      return first;
    },
  };
}

function untag(message: JSONRPCMessage, tagged: Map<RequestId, string>): JSONRPCMessage {
  const taken = takeCallMeta(message, CALL_TAG_META);
  if (taken.id !== undefined && typeof taken.value === 'string')
    rememberBounded(tagged, taken.id, taken.value);
  return taken.message;
}

function schemaOf(params: unknown): { schema?: Record<string, unknown> } {
  const schema = isObject(params) ? params.requestedSchema : undefined;
  return isObject(schema) ? { schema } : {};
}

function dropOldest(byKey: Map<string, RawQuestion[]>): void {
  const [key, queue] = byKey.entries().next().value as [string, RawQuestion[]];
  queue.shift();
  if (queue.length === 0) byKey.delete(key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
