// An in-process Streamable HTTP MCP server on 127.0.0.1:<random port>, one McpServer per
// session (NodeStreamableHTTPServerTransport, stateful), recording the headers of every request
// so tests can check what a client sent.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';

export interface TestHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** Headers of every request received, in order. */
  readonly requests: IncomingHttpHeaders[];
  /** Sessions currently open. */
  readonly sessions: ReadonlySet<string>;
  close(): Promise<void>;
}

export async function startHttpMcpServer(
  createServerFor: () => McpServer,
  /** Answer POSTs with a JSON body instead of an event stream. @default false */
  options: { jsonResponse?: boolean } = {},
): Promise<TestHttpServer> {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const requests: IncomingHttpHeaders[] = [];
  const sessions = new Set<string>();

  const http = createServer(async (req, res) => {
    requests.push(req.headers);
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (req.method !== 'POST' || sessionId !== undefined) {
        res.writeHead(404).end();
        return;
      }
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: options.jsonResponse ?? false,
        onsessioninitialized: (id) => {
          transports.set(id, created);
          sessions.add(id);
        },
        onsessionclosed: (id) => {
          transports.delete(id);
          sessions.delete(id);
        },
      });
      const server = createServerFor();
      servers.push(server);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    sessions,
    async close() {
      await Promise.all(servers.map((server) => server.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
