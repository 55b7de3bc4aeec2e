// A remote MCP server with a dashboard, for the canvas tests (docs/canvas.md): Streamable HTTP at
// /mcp and a page at /dash on one loopback origin, as a real tool host would serve them. Its
// `open_canvas` tool returns a v2 `canvas` envelope (its own /dash unless told another URL) with
// the token it was started with, as a tool mints its own (the model never chooses it). The page records every token message it receives and shows the last;
// the server records every request for /dash (host, Cookie and Referer headers). Used by
// apps/ferry/test/routes/canvas-frames.test.ts and e2e/canvas-frames.spec.ts.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface CanvasServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: the MCP server's own origin. */
  readonly origin: string;
  /** The same server under another name, `http://localhost:<port>`: another origin. */
  readonly otherOrigin: string;
  /** Headers of each request for /dash, in order. */
  readonly dashRequests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** The dashboard: keeps each `ferry:canvas-token` message from its parent, asks for one too. */
const DASHBOARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test dashboard</title></head>
<body>
<p id="status">waiting for a token</p>
<script>
  window.received = [];
  addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const data = event.data;
    if (!data || data.type !== 'ferry:canvas-token') return;
    window.received.push({ origin: event.origin, data });
    document.getElementById('status').textContent = 'token ' + data.token + ' for ' + data.canvasId;
  });
  // The request path of the hand-over: nothing secret in it, so any parent may read it.
  window.parent.postMessage({ type: 'ferry:canvas-token-request' }, '*');
</script>
</body></html>
`;

const OpenCanvasInput = z.object({
  url: z.string().optional(),
  id: z.string().default('dash'),
  withToken: z.boolean().default(true),
  token_expires_at: z.string().optional(),
  /** Puts the token in `results` and `meta_data` too: what a careless tool might do. */
  echo: z.boolean().default(false),
});

/** `token`: the capability token every envelope carries (unless a call asks for none). */
export async function startCanvasServer(token: string): Promise<CanvasServer> {
  let origin = '';
  const dashRequests: IncomingHttpHeaders[] = [];
  const factory = () => {
    const server = new McpServer({ name: 'canvas-test', version: '1.0.0' });
    server.registerTool(
      'open_canvas',
      { description: 'Opens the dashboard in the canvas', inputSchema: OpenCanvasInput },
      async ({ url, id, withToken, token_expires_at, echo }) => {
        const canvas = {
          open: true,
          id,
          type: 'iframe',
          url: url ?? `${origin}/dash?view=${encodeURIComponent(id)}`,
          title: 'Test dashboard',
          ...(withToken ? { token } : {}),
          ...(token_expires_at === undefined ? {} : { token_expires_at }),
          // What a tool may add; the host passes none of it on.
          allowed: true,
          extra: 'not for the UI',
        };
        const results = echo ? { status: 'opened', note: `token ${token}` } : { status: 'opened' };
        const payload = { results, ...(echo ? { meta_data: { token } } : {}), canvas };
        return { content: [{ type: 'text', text: JSON.stringify(payload) }] };
      },
    );
    return server;
  };
  const onerror = (error: Error) => process.stderr.write(`[canvas-server] ${error.message}\n`);
  const mcp = toNodeHandler(createMcpHandler(factory, { onerror }), { onerror });
  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/mcp') {
      mcp(req, res).catch((error: unknown) => {
        onerror(error instanceof Error ? error : new Error(String(error)));
        res.destroy();
      });
      return;
    }
    if (path === '/dash') {
      dashRequests.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DASHBOARD_HTML);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    otherOrigin: `http://localhost:${port}`,
    dashRequests,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
