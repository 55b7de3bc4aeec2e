import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/client';

// Works around modelcontextprotocol/typescript-sdk#2580. The SDK's Protocol handles a response
// synchronously but runs notification handlers one microtask later. A server that reports its
// last progress right before returning writes both back to back; when they arrive together (one
// stdio chunk, one SSE read) the response retires the call's progress handler first, so the
// final progress is dropped and reported as "unknown token". Delivering responses one microtask
// late puts them behind the notifications that arrived before them, as on the wire.

/** Wraps the `onmessage` that `Client.connect` installed on `transport`; call after connecting. */
export function deliverResponsesAfterNotifications(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ('id' in message && !('method' in message)) {
      queueMicrotask(() => deliver.call(transport, message, extra));
    } else {
      deliver.call(transport, message, extra);
    }
  };
}
