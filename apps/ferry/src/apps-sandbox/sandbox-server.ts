// The sandbox origin of MCP Apps (docs/mcp-apps.md): a second listener beside Ferry's, serving the
// proxy page and nothing else. No API, no cookies, no web app: a page of this origin can reach
// nothing of Ferry's, and the apps it frames get an opaque origin besides (proxy-page.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { buildAppCsp, parseCspDomains } from './app-csp.js';
import { proxyPageHtml } from './proxy-page.js';

export const SANDBOX_PROXY_PATH = '/sandbox-proxy.html';

export interface AppsSandboxOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The origin as browsers reach it. @default the address it listens on */
  publicUrl?: string;
}

export interface AppsSandbox {
  /** Where the web app loads the proxy page from: `<origin>/sandbox-proxy.html`. */
  readonly proxyUrl: string;
  readonly origin: string;
  close(): Promise<void>;
}

export async function startAppsSandbox(options: AppsSandboxOptions): Promise<AppsSandbox> {
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const listened = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const origin = new URL(options.publicUrl ?? listened).origin;
  return {
    proxyUrl: `${origin}${SANDBOX_PROXY_PATH}`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of the browser would otherwise hold the close open.
        server.closeAllConnections();
      }),
  };
}

function handle(request: IncomingMessage, reply: ServerResponse): void {
  reply.setHeader('x-content-type-options', 'nosniff');
  reply.setHeader('referrer-policy', 'no-referrer');
  reply.setHeader('cache-control', 'no-store');
  const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
  if (url.pathname !== SANDBOX_PROXY_PATH) {
    text(reply, 404, 'Not found: this origin serves only the MCP Apps sandbox proxy.');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    reply.setHeader('allow', 'GET, HEAD');
    text(reply, 405, 'Method not allowed.');
    return;
  }
  const declared = parseCspDomains(url.searchParams.get('csp') ?? undefined);
  if (!declared.ok) {
    text(reply, 400, declared.error);
    return;
  }
  const csp = buildAppCsp(declared.domains);
  const body = proxyPageHtml(csp);
  reply.statusCode = 200;
  reply.setHeader('content-type', 'text/html; charset=utf-8');
  reply.setHeader('content-security-policy', csp);
  // Framing is what it is for; being loaded as another site's script or image is not.
  reply.setHeader('cross-origin-resource-policy', 'same-origin');
  reply.setHeader('content-length', Buffer.byteLength(body));
  reply.end(request.method === 'HEAD' ? undefined : body);
}

function text(reply: ServerResponse, status: number, message: string): void {
  reply.statusCode = status;
  reply.setHeader('content-type', 'text/plain; charset=utf-8');
  reply.setHeader('content-security-policy', "default-src 'none'");
  reply.end(message);
}
