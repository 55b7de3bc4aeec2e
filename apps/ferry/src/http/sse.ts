// A server-sent events response on a hijacked reply: headers that keep proxies from buffering,
// a retry hint, a heartbeat comment so idle connections stay open, and one `close` for both ends.
// Used by every stream of the API (a call's events, the user's events, a chat turn).
import type { FastifyReply } from 'fastify';

const HEARTBEAT_MS = 15_000;

export interface SseStream {
  /** `data` is JSON-encoded, which escapes newlines: a value can never end the event early. */
  send(id: number, event: string, data: unknown): void;
  /** Ends the response (the client's EventSource reconnects unless told otherwise). */
  end(): void;
  /** Runs once when the stream ends, from either side. */
  onClose(listener: () => void): void;
}

export function openSseStream(reply: FastifyReply): SseStream {
  // Headers hooks already set (X-Ferry-Session, Referrer-Policy, …) would be lost by the hijack.
  const earlier = Object.fromEntries(
    Object.entries(reply.getHeaders()).filter(
      (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
    ),
  );
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    ...earlier,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  // A HEAD request gets the headers and nothing else: Node drops writes to a HEAD response, so
  // without an end() its headers would never leave and the client would wait forever.
  const head = reply.request.method === 'HEAD';
  if (head) out.end();
  else out.write('retry: 2000\n\n');
  const heartbeat = head ? undefined : setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat?.unref();
  out.on('close', () => clearInterval(heartbeat));
  return {
    send: (id, event, data) => {
      if (out.writableEnded || out.destroyed) return;
      out.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end: () => {
      clearInterval(heartbeat);
      out.end();
    },
    onClose: (listener) => {
      out.on('close', listener);
    },
  };
}
