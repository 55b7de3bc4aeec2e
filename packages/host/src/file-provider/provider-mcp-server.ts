// The provider's standard MCP surface: the official SDK server over stateless Streamable HTTP, one
// server and one transport per HTTP request (sessionIdGenerator undefined, JSON responses), so no
// state outlives a callback. tools/list and tools/call use the low-level handlers: McpServer's own
// tools/call would validate arguments against the schema and answer with the SDK's message, where
// the spec wants its FileProviderError object, which the operations produce.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { type CallToolResult, McpServer, type Tool } from '@modelcontextprotocol/server';
import type { ProviderToolDefinition } from './provider-tool-definitions.js';
import {
  FILE_PROVIDER_SERVER_NAME,
  FILE_PROVIDER_SPEC_VERSION,
  type ProviderResult,
} from './provider-types.js';

/** What both surfaces serve: the tool list and a call that answers a value or the spec's error. */
export interface ProviderToolRunner {
  readonly tools: readonly ProviderToolDefinition[];
  /** Never throws for a caller's mistake: bad arguments or an unknown tool answer an error object. */
  call(tool: string, args: unknown, signal?: AbortSignal): Promise<ProviderResult>;
}

export const PROVIDER_SERVER_INFO = {
  name: FILE_PROVIDER_SERVER_NAME,
  version: FILE_PROVIDER_SPEC_VERSION,
} as const;

function createProviderMcpServer(runner: ProviderToolRunner): McpServer {
  const mcp = new McpServer({ ...PROVIDER_SERVER_INFO }, { capabilities: { tools: {} } });
  mcp.server.setRequestHandler('tools/list', () => ({
    tools: runner.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      // A plain JSON Schema; the SDK's type wants JSON values where the definition says unknown.
      inputSchema: tool.inputSchema as Tool['inputSchema'],
    })),
  }));
  mcp.server.setRequestHandler('tools/call', async (request, ctx) => {
    const result = await runner.call(request.params.name, request.params.arguments ?? {}, ctx.mcpReq.signal);
    return mcp.server.projectCallToolResult(toCallToolResult(result), undefined);
  });
  return mcp;
}

/** The spec's value as MCP content: text for a model, structuredContent for a program. */
function toCallToolResult(result: ProviderResult): CallToolResult {
  if (result.ok) {
    const { value } = result;
    return {
      content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }],
      structuredContent: { result: value },
    };
  }
  const { error, error_type } = result.error;
  return {
    content: [{ type: 'text', text: JSON.stringify({ error, error_type }) }],
    structuredContent: { error, error_type },
    isError: true,
  };
}

/** Serves one POST whose JSON body the caller has already read and parsed. */
export async function serveProviderMcp(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  runner: ProviderToolRunner,
): Promise<void> {
  const server = createProviderMcpServer(runner);
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
