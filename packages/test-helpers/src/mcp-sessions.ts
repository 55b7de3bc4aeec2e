// Stateful Streamable HTTP for in-process test servers: one McpServer per session, its transport
// found by the mcp-session-id header; a POST without one opens a session, anything else unknown
// is a 404.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';

export interface McpSessions {
  /** Sessions currently open. */
  readonly sessions: ReadonlySet<string>;
  /**
   * Serves one request; `createServer` makes the McpServer of a session this request opens.
   * `body`: the request's JSON when the caller has already read it.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    createServer: () => McpServer,
    body?: unknown,
  ): Promise<void>;
  /** Closes every session's McpServer. */
  close(): Promise<void>;
}

export function mcpSessions(
  /** Answer POSTs with a JSON body instead of an event stream. */
  options: { jsonResponse: boolean },
): McpSessions {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const sessions = new Set<string>();
  return {
    sessions,
    async handle(req, res, createServer, body) {
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (transport === undefined) {
        if (req.method !== 'POST' || sessionId !== undefined) {
          res.writeHead(404).end();
          return;
        }
        const created: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.jsonResponse,
          onsessioninitialized: (id) => {
            transports.set(id, created);
            sessions.add(id);
          },
          onsessionclosed: (id) => {
            transports.delete(id);
            sessions.delete(id);
          },
        });
        const server = createServer();
        servers.push(server);
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    },
    async close() {
      await Promise.all(servers.map((server) => server.close().catch(() => {})));
    },
  };
}
