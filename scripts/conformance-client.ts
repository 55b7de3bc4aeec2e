// The client under test of `npm run conformance` (scripts/conformance.mjs): the MCP conformance
// runner starts a mock server per scenario and runs this with its URL as the last argument.
// Everything MCP goes through Ferry's own connection code (createConnectionPool over a registry
// with one remote server), with the pool's defaults: what Ferry does not meet yet shows up as
// failures, baselined in test/conformance/ with the reason (docs/conformance.md).
// Run: node --import tsx --conditions=ferry-source scripts/conformance-client.ts <url>
import type { Tool } from '@modelcontextprotocol/client';
import { askForm, formFields } from '../apps/ferry/src/cli/elicitation-form.js';
import type { LineSource } from '../apps/ferry/src/cli/line-source.js';
// The modules themselves, not @ferry/host's index: the runner starts up to 39 of these clients at
// once, and loading all of the host (storage, sandbox…) through tsx costs each ~1.4 s of CPU.
import type {
  ElicitationRequest,
  ElicitationResult,
  ToolConnection,
} from '../packages/host/src/connections/connection.js';
import { createConnectionPool } from '../packages/host/src/connections/connection-pool.js';
import { createServerRegistry } from '../packages/host/src/servers/server-registry.js';

const SERVER = 'conformance';
const USER = 'conformance';

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Runner contract: MCP_CONFORMANCE_CONTEXT is JSON, some scenarios give the calls to make. */
function contextToolCalls(): ToolCall[] | undefined {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return undefined;
  const context = JSON.parse(raw) as { toolCalls?: { name: string; arguments?: Record<string, unknown> }[] };
  return context.toolCalls?.map((call) => ({ name: call.name, arguments: call.arguments ?? {} }));
}

/** The calls a scenario needs, from the tools it lists (one line per scenario: docs/conformance.md). */
function callsFor(scenario: string, tools: Tool[]): ToolCall[] {
  // SEP-2106: the mock only answers tools/list; the check is that the client never fetches the
  // schema's network $ref, so listing is the whole job.
  if (scenario === 'json-schema-ref-no-deref') return [];
  if (scenario === 'json-schema-2020-12-preservation') {
    const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    return focal ? [{ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } }] : [];
  }
  const fromContext = contextToolCalls();
  if (fromContext) return fromContext;
  return tools.map((tool) => ({
    name: tool.name,
    arguments: tool.name === 'add_numbers' ? { a: 2, b: 3 } : {},
  }));
}

/**
 * A Ferry user who accepts the form as offered: the CLI's own form (`ferry call`), every prompt
 * answered with Enter, which takes the server's default. A required field without a default is
 * asked again: the second time is the end of input, which declines.
 */
async function acceptDefaults(request: ElicitationRequest): Promise<ElicitationResult> {
  let lastQuery: string | undefined;
  const lines: LineSource = {
    terminal: false,
    async ask(query) {
      const again = query === lastQuery;
      lastQuery = query;
      return again ? null : '';
    },
    say() {},
    idle() {},
    close() {},
  };
  const outcome = await askForm(formFields({ requestedSchema: request.requestedSchema, fileFields: [] }), {
    lines,
    resolveFile: async () => ({ ok: false, reason: 'no files in conformance runs' }),
  });
  return outcome.action === 'accept' ? { action: 'accept', content: outcome.content } : outcome;
}

async function callAll(connection: ToolConnection, calls: ToolCall[]): Promise<void> {
  for (const call of calls) {
    // A failed call is often what the scenario wants (a rejected tool, a deliberate error): the
    // runner judges it from the wire, so it is logged, never fatal.
    try {
      const result = await connection.callTool(call, {
        signal: AbortSignal.timeout(20_000),
        onElicitation: acceptDefaults,
      });
      console.error(`[client] ${call.name}: ${JSON.stringify(result).slice(0, 200)}`);
    } catch (error) {
      console.error(
        `[client] ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

async function main(url: string, scenario: string): Promise<number> {
  const pool = createConnectionPool({
    registry: createServerRegistry({ [SERVER]: { transport: 'http', url } }),
    clientInfo: { name: 'ferry-conformance', version: '0.1.0' },
    connectTimeoutMs: 20_000,
    onEvent: (event) => console.error(`[client] event ${JSON.stringify(event)}`),
  });
  try {
    let connection: ToolConnection;
    let tools: Tool[];
    try {
      connection = await pool.get(SERVER, USER);
      tools = await connection.listTools();
    } catch (error) {
      console.error(
        `[client] connect/list failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 1;
    }
    console.error(`[client] tools: ${tools.map((tool) => tool.name).join(', ')}`);
    await callAll(connection, callsFor(scenario, tools));
    return 0;
  } finally {
    await pool.close();
  }
}

const url = process.argv.at(-1);
if (!url?.startsWith('http')) {
  console.error('usage: conformance-client.ts <server url>  (env MCP_CONFORMANCE_SCENARIO)');
  process.exit(2);
}
process.exitCode = await main(url, process.env.MCP_CONFORMANCE_SCENARIO ?? '');
