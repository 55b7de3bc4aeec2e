// An in-process Streamable HTTP MCP server on 127.0.0.1:<random port>, one McpServer per
// session (NodeStreamableHTTPServerTransport, stateful), recording the headers of every request
// so tests can check what a client sent.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpSessions } from '@ferry/test-helpers/mcp-sessions';
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
  const mcp = mcpSessions({ jsonResponse: options.jsonResponse ?? false });
  const requests: IncomingHttpHeaders[] = [];

  const http = createServer(async (req, res) => {
    requests.push(req.headers);
    await mcp.handle(req, res, createServerFor);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    sessions: mcp.sessions,
    async close() {
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
