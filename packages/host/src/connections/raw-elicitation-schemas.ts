import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport } from '@modelcontextprotocol/client';

// The SDK validates an incoming `elicitation/create` against its own zod schemas, whose property
// schemas are plain z.object()s: unknown keywords are stripped, and with them SEP-2356's
// `x-mcp-file` (the very thing that makes a field a file picker). So the requestedSchema is kept
// here as it came over the wire, by request id, for the handler to use instead. The SDK's
// validation still runs (the request must be a well-formed elicitation); only the extra keywords
// come from the raw message.

/** Wraps the `onmessage` that `Client.connect` installed; call after connecting. */
export function captureElicitationSchemas(transport: Transport): {
  take(id: RequestId): Record<string, unknown> | undefined;
} {
  const raw = new Map<RequestId, Record<string, unknown>>();
  const deliver = transport.onmessage;
  if (deliver !== undefined) {
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
        const schema = (message.params as { requestedSchema?: unknown } | undefined)?.requestedSchema;
        if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
          // Bounded: a server that floods questions nobody takes cannot grow this without end.
          if (raw.size >= 64) raw.delete(raw.keys().next().value as RequestId);
          raw.set(message.id, schema as Record<string, unknown>);
        }
      }
      deliver.call(transport, message, extra);
    };
  }
  return {
    take(id) {
      const schema = raw.get(id);
      raw.delete(id);
      return schema;
    },
  };
}
