// The provider's compatibility surface, for VulniCheck's HTTP MCPClient
// (andrasfe/vulnicheck vulnicheck/mcp/mcp_client.py): it POSTs single JSON-RPC messages with no
// session, and takes the `result` of tools/call itself as the tool's value (a str, list, bool or
// dict), where MCP wraps values in a CallToolResult. The SDK server refuses to send anything but a
// CallToolResult, hence this minimal hand-written JSON-RPC: initialize, ping, notifications,
// tools/list (the same definitions as the standard surface) and tools/call answering the bare value
// or the spec's {error, error_type}. Batches (JSON arrays) are refused with -32600: no client of
// this surface sends them, and MCP 2025-06-18 removed them.
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { PROVIDER_SERVER_INFO, type ProviderToolRunner } from './provider-mcp-server.js';

export const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_METHOD_NOT_FOUND = -32601;
const JSONRPC_INVALID_PARAMS = -32602;

type JsonRpcId = string | number | null;

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string };
}

export type CompatAnswer =
  /** A notification or a posted response: accepted, no body. */
  | { status: 202 }
  | { status: 200; body: { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } }
  | { status: 200 | 400; body: JsonRpcErrorBody };

const idSchema = z.union([z.string(), z.number().int()]);
const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: idSchema.optional(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});
const responseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: idSchema.nullable(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
const initializeParams = z.object({ protocolVersion: z.string() }).loose();
const callParams = z.object({ name: z.string(), arguments: z.unknown().optional() }).loose();

export function jsonRpcError(id: JsonRpcId, code: number, message: string): JsonRpcErrorBody {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Answers one parsed JSON-RPC message. Tool failures are values, never JSON-RPC errors. */
export async function answerCompat(
  message: unknown,
  runner: ProviderToolRunner,
  signal?: AbortSignal,
): Promise<CompatAnswer> {
  if (Array.isArray(message)) {
    return {
      status: 400,
      body: jsonRpcError(null, JSONRPC_INVALID_REQUEST, 'Batch requests are not supported'),
    };
  }
  const parsed = requestSchema.safeParse(message);
  if (!parsed.success) {
    if (responseSchema.safeParse(message).success) return { status: 202 };
    return {
      status: 400,
      body: jsonRpcError(idOf(message), JSONRPC_INVALID_REQUEST, 'Invalid JSON-RPC request'),
    };
  }
  const { id, method, params = {} } = parsed.data;
  if (id === undefined) return { status: 202 };

  const ok = (result: unknown): CompatAnswer => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
  const fail = (code: number, text: string): CompatAnswer => ({
    status: 200,
    body: jsonRpcError(id, code, text),
  });

  switch (method) {
    case 'initialize': {
      const init = initializeParams.safeParse(params);
      if (!init.success) return fail(JSONRPC_INVALID_PARAMS, 'initialize needs params.protocolVersion');
      const asked = init.data.protocolVersion;
      return ok({
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
        capabilities: { tools: {} },
        serverInfo: { ...PROVIDER_SERVER_INFO },
      });
    }
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({
        tools: runner.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      });
    case 'tools/call': {
      const call = callParams.safeParse(params);
      if (!call.success) return fail(JSONRPC_INVALID_PARAMS, 'tools/call needs params.name');
      const result = await runner.call(call.data.name, call.data.arguments ?? {}, signal);
      return ok(
        result.ok ? result.value : { error: result.error.error, error_type: result.error.error_type },
      );
    }
    default:
      return fail(JSONRPC_METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 100)}`);
  }
}

function idOf(message: unknown): JsonRpcId {
  const id = (message as { id?: unknown } | null)?.id;
  return idSchema.safeParse(id).success ? (id as string | number) : null;
}
