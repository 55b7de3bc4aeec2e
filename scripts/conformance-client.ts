// The client under test of `npm run conformance` (scripts/conformance.mjs): the MCP conformance
// runner starts a mock server per scenario and runs this with its URL as the last argument.
// Everything MCP goes through Ferry's own connection code (createConnectionPool over a registry
// with one remote server), with the pool's defaults: what Ferry does not meet yet shows up as
// failures, baselined in test/conformance/ with the reason (docs/conformance.md).
// Run: node --import tsx --conditions=ferry-source scripts/conformance-client.ts <url>
import { FerryError } from '@ferry/contract';
import type { Tool } from '@modelcontextprotocol/client';
import { askForm, formFields } from '../apps/ferry/src/cli/elicitation-form.js';
import type { LineSource } from '../apps/ferry/src/cli/line-source.js';
// The modules themselves, not @ferry/host's index: the runner starts up to 39 of these clients at
// once, and loading all of the host (storage, sandbox…) through tsx costs each ~1.4 s of CPU.
import type { ElicitationRequest, ElicitationResult } from '../packages/host/src/connections/connection.js';
import { createConnectionPool } from '../packages/host/src/connections/connection-pool.js';
import { createMemoryOAuthRecordStore } from '../packages/host/src/connections/oauth/oauth-record.js';
import { createRemoteAuth, type RemoteAuth } from '../packages/host/src/connections/oauth/remote-auth.js';
import { createServerRegistry } from '../packages/host/src/servers/server-registry.js';

const SERVER = 'conformance';
const USER = 'conformance';
/** Where the authorization server sends the browser back: never fetched, the code is read off it. */
const REDIRECT_URL = 'http://localhost:3000/callback';
/** The client ID metadata document the suite's authorization servers expect (SEP-991). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Re-authorizations per connect or call: a server that keeps refusing must not loop us. */
const MAX_AUTHORIZATIONS = 2;

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
  // A link to open (URL mode): a headless user has no browser, and declines.
  if (request.mode === 'url') return { action: 'decline' };
  const outcome = await askForm(formFields({ requestedSchema: request.requestedSchema, fileFields: [] }), {
    lines,
    resolveFile: async () => ({ ok: false, reason: 'no files in conformance runs' }),
  });
  return outcome.action === 'accept' ? { action: 'accept', content: outcome.content } : outcome;
}

/** A pre-registered client the scenario hands over (auth/pre-registration), if any. */
function contextClient(): { clientId: string; clientSecret: string } | undefined {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return undefined;
  const context = JSON.parse(raw) as { client_id?: unknown; client_secret?: unknown };
  return typeof context.client_id === 'string' && typeof context.client_secret === 'string'
    ? { clientId: context.client_id, clientSecret: context.client_secret }
    : undefined;
}

/**
 * The user's browser, headless: Ferry's own start of the flow (the URL `ferry call` prints), the
 * authorization server's answer (the suite's approves at once), Ferry's callback with the code.
 */
async function authorizeHeadless(auth: RemoteAuth): Promise<void> {
  const url = await auth.start(SERVER, USER);
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null)
    throw new Error(`the authorization endpoint answered ${response.status}, no redirect`);
  const result = await auth.finish(USER, new URL(location).searchParams);
  console.error(`[client] authorization: ${result.outcome}`);
}

const needsAuthorization = (error: unknown) =>
  error instanceof FerryError && error.code === 'E_AUTH_REQUIRED';

/** Runs `attempt`; when the server wants an authorization, gets one and runs it again. */
async function withAuthorization<T>(auth: RemoteAuth, attempt: () => Promise<T>): Promise<T> {
  for (let round = 0; ; round += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!needsAuthorization(error) || round >= MAX_AUTHORIZATIONS) throw error;
      await authorizeHeadless(auth);
    }
  }
}

async function callAll(
  pool: ReturnType<typeof createConnectionPool>,
  auth: RemoteAuth,
  calls: ToolCall[],
): Promise<void> {
  for (const call of calls) {
    // A failed call is often what the scenario wants (a rejected tool, a deliberate error): the
    // runner judges it from the wire, so it is logged, never fatal.
    try {
      const result = await withAuthorization(auth, async () =>
        (await pool.get(SERVER, USER)).callTool(call, {
          signal: AbortSignal.timeout(20_000),
          onElicitation: acceptDefaults,
        }),
      );
      console.error(`[client] ${call.name}: ${JSON.stringify(result).slice(0, 200)}`);
    } catch (error) {
      console.error(
        `[client] ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

async function main(url: string, scenario: string): Promise<number> {
  const preRegistered = contextClient();
  const registry = createServerRegistry({
    [SERVER]: { transport: 'http', url, ...(preRegistered && { oauth: preRegistered }) },
  });
  // Ferry's OAuth (packages/host/src/connections/oauth), its credentials kept in memory.
  const auth = createRemoteAuth({
    registry,
    store: createMemoryOAuthRecordStore(),
    redirectUrl: () => REDIRECT_URL,
    connectUrl: (server) => `/api/oauth/${server}/start`,
    clientMetadataUrl: () => CLIENT_METADATA_URL,
  });
  const pool = createConnectionPool({
    registry,
    clientInfo: { name: 'ferry-conformance', version: '0.1.0' },
    connectTimeoutMs: 20_000,
    onEvent: (event) => console.error(`[client] event ${JSON.stringify(event)}`),
    authProvider: (server, user) => auth.providerFor(server, user),
  });
  try {
    let tools: Tool[];
    try {
      tools = await withAuthorization(auth, async () => (await pool.get(SERVER, USER)).listTools());
    } catch (error) {
      console.error(
        `[client] connect/list failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 1;
    }
    console.error(`[client] tools: ${tools.map((tool) => tool.name).join(', ')}`);
    await callAll(pool, auth, callsFor(scenario, tools));
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
