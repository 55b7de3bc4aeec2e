// Streamable HTTP on plain node:http. The SDK's web-standard `createMcpHandler` does the protocol
// (both the 2026-07-28 per-request era and the stateless 2025 fallback, SSE upgrade when a tool
// sends progress); @modelcontextprotocol/node's `toNodeHandler` converts node:http to fetch and
// back (body limit, abort when the client leaves, write backpressure) and its guards reject
// foreign Host and Origin headers. This file only routes /mcp and owns the listening socket.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  type McpHandlerRequestOptions,
  type McpServerFactory,
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
  /** Puts a handler in front of the SDK's, for requests the SDK entry would answer itself. */
  wrapFetch?: (fetch: McpFetch) => McpFetch;
}

/** The web-standard face of an MCP HTTP handler. */
export type McpFetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

export interface HttpServerHandle {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, aborts open exchanges, closes connections. */
  close(): Promise<void>;
}

export async function serveHttp(
  factory: McpServerFactory,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const maxRequestBodySize = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  const onerror = options.onerror ?? ((error: Error) => console.error(`[mcp http] ${error.message}`));
  const handler = createMcpHandler(factory, { maxRequestBodySize, onerror });
  const fetch = options.wrapFetch ? options.wrapFetch(handler.fetch) : handler.fetch;
  const mcp = toNodeHandler({ fetch }, { maxRequestBodySize, onerror });
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();

  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    mcp(req, res).catch((error: unknown) => {
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
