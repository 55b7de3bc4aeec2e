// Streamable HTTP on plain node:http. The SDK's web-standard `createMcpHandler` does the protocol
// (both the 2026-07-28 per-request era and the stateless 2025 fallback, SSE upgrade when a tool
// sends progress); this file only converts node:http to fetch Request/Response and back, the same
// way @modelcontextprotocol/node's toNodeHandler does, so server-kit needs no extra dependency.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  originValidationResponse,
} from '@modelcontextprotocol/server';

export const MCP_PATH = '/mcp';
/**
 * x-mcp-file and data-uri inputs arrive inside the JSON body, base64 (4/3 of the file) and
 * possibly several per call, so the SDK's 4 MiB default is too small. 64 MiB.
 */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;

export interface ServeHttpOptions {
  /** 0 picks a free port; the handle tells which. @default 0 */
  port?: number;
  /**
   * The examples have no authentication, so they listen on loopback only and reject other Host
   * and Origin headers (DNS rebinding). @default '127.0.0.1'
   */
  host?: string;
  /** @default DEFAULT_MAX_REQUEST_BODY_BYTES */
  maxRequestBodyBytes?: number;
  /** Out-of-band errors (a handler that threw, a failed write). @default logs to stderr */
  onerror?: (error: Error) => void;
}

export interface HttpServerHandle {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, aborts open exchanges, closes connections. */
  close(): Promise<void>;
}

class BodyTooLargeError extends Error {}

export async function serveHttp(
  factory: McpServerFactory,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const maxBytes = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  const onerror = options.onerror ?? ((error: Error) => console.error(`[mcp http] ${error.message}`));
  const handler = createMcpHandler(factory, { maxRequestBodySize: maxBytes, onerror });
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const abort = new AbortController();
    let finished = false;
    // The client went away (or gave up on a hanging tool): abort the exchange so the SDK
    // signals the handler instead of writing into a closed socket.
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    let response: Response;
    if ((req.url ?? '/').split('?')[0] !== MCP_PATH) {
      response = new Response(`Not found: the MCP endpoint is ${MCP_PATH}\n`, { status: 404 });
    } else {
      try {
        const request = await toRequest(req, abort.signal, maxBytes);
        response =
          hostHeaderValidationResponse(request, hosts) ??
          originValidationResponse(request, origins) ??
          (await handler.fetch(request));
      } catch (error) {
        response = errorResponse(error, maxBytes, onerror);
      }
    }
    await writeResponse(response, res, abort.signal);
    finished = true;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onerror(error instanceof Error ? error : new Error(String(error)));
      res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function toRequest(req: IncomingMessage, signal: AbortSignal, maxBytes: number): Promise<Request> {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const init: RequestInit = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    if (Number(req.headers['content-length']) > maxBytes) throw new BodyTooLargeError();
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxBytes) throw new BodyTooLargeError();
      chunks.push(chunk);
    }
    if (received > 0) init.body = Buffer.concat(chunks);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init);
}

function errorResponse(error: unknown, maxBytes: number, onerror: (error: Error) => void): Response {
  const tooLarge = error instanceof BodyTooLargeError;
  if (!tooLarge) onerror(error instanceof Error ? error : new Error(String(error)));
  const message = tooLarge ? `Request body must not exceed ${maxBytes} bytes` : 'Internal error';
  return Response.json(
    { jsonrpc: '2.0', error: { code: tooLarge ? -32000 : -32603, message }, id: null },
    { status: tooLarge ? 413 : 500, headers: tooLarge ? { connection: 'close' } : {} },
  );
}

async function writeResponse(response: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  const closed = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  const reader = response.body.getReader();
  // A tool that hangs keeps its SSE stream open without a chunk; cancelling the reader when the
  // client leaves ends the pending read, so the exchange does not outlive the connection.
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  if (signal.aborted) cancel();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      if (!res.write(value))
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The stream failed or was cancelled with the exchange; nothing more to send.
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  res.end();
}
