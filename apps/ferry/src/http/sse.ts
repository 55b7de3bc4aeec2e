// A server-sent events response on a hijacked reply: headers that keep proxies from buffering,
// a retry hint, a heartbeat comment so idle connections stay open, and one `close` for both ends.
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
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  // A HEAD request gets the headers and nothing else: Node drops writes to a HEAD response, so
  // without an end() its headers would never leave and the client would wait forever.
  if (reply.request.method === 'HEAD') out.end();
  else out.write('retry: 2000\n\n');
  const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
  if (out.writableEnded) clearInterval(heartbeat);
  heartbeat.unref();
  out.on('close', () => clearInterval(heartbeat));
  return {
    send: (id, event, data) => {
      if (out.writableEnded) return;
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
