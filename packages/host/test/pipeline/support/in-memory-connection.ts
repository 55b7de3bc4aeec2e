// A ToolConnection over the SDK's InMemoryTransport with a real McpServer on the other end: the
// smallest adapter that lets pipeline tests drive real MCP traffic (progress, cancellation) with
// no process. `kind` is chosen by the test; `kill` only records that it was asked for.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import type { ConnectionPool, ToolConnection } from '../../../src/connections/connection.js';

export interface TestConnection extends ToolConnection {
  readonly kills: string[];
  close(): Promise<void>;
}

/** Long enough that only Ferry's watchdog ever times a call out. */
const SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export async function connectInMemory(
  server: McpServer,
  options: { name?: string; kind?: 'local' | 'remote' } = {},
): Promise<TestConnection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'ferry-test', version: '0.0.0' });
  await client.connect(clientSide);
  const kills: string[] = [];
  return {
    server: options.name ?? 'test',
    kind: options.kind ?? 'local',
    protocolEra: client.getProtocolEra(),
    kills,
    listTools: async () => (await client.listTools()).tools,
    callTool: (request, callOptions) =>
      client.callTool(
        { name: request.name, arguments: request.arguments },
        {
          signal: callOptions.signal,
          timeout: SDK_TIMEOUT_MS,
          ...(callOptions.onProgress
            ? {
                onprogress: (p: { progress: number; total?: number; message?: string }) =>
                  callOptions.onProgress?.({ progress: p.progress, total: p.total, message: p.message }),
              }
            : {}),
        },
      ),
    readResource: async (uri, readOptions) =>
      (await client.readResource({ uri }, readOptions.signal ? { signal: readOptions.signal } : {}))
        .contents as never,
    kill: async (reason) => {
      kills.push(reason);
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A pool that always hands out the one connection, recording who asked. */
export function singleConnectionPool(connection: ToolConnection): ConnectionPool & { gets: string[][] } {
  const gets: string[][] = [];
  return {
    gets,
    get: async (server, user) => {
      gets.push([server, user]);
      return connection;
    },
    closeUser: async () => 0,
    close: async () => undefined,
  };
}
