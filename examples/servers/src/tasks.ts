// Tasks (MCP 2026-07-28, extension `io.modelcontextprotocol/tasks`, SEP-2663): a slow tool that
// answers a client which declared the extension with a task handle at once and does its work in
// the background; the client follows it with tasks/get, answers its questions with tasks/update
// and stops it with tasks/cancel. A client that did not declare the extension (or a 2025-era
// connection) gets an ordinary call with notifications/progress instead. ferry.config.json offers
// `render_report` to users; with `--test-tools` (test/ferry.test-config.json) `task_scenario`
// misbehaves on purpose and `task_record` tells what the server saw, so tests can check that a
// cancel reached it.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/tasks.ts [--test-tools] [--http <port>]
import { isMainModule, reportProgress, runServer, v21Result, workspace } from '@ferry/server-kit';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sleep } from './lib/sleep.js';
import { TASKS_EXTENSION, taskListenEntry } from './lib/task-listen.js';
import { createTaskStore, type TaskWork } from './lib/task-store.js';
import { TEST_TOOLS_FLAG } from './lib/test-tools.js';

export { TASKS_EXTENSION };
export const MAX_TASK_SECONDS = 3600;

// One store per process: served over HTTP each request gets its own McpServer, and a task's
// tasks/get arrives on another one than its tools/call.
const store = createTaskStore();

export function createTasksServer(options: { testTools?: boolean } = {}): McpServer {
  const server = new McpServer({ name: 'ferry-example-tasks', version: '0.1.0' });
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  store.serve(server.server);

  server.registerTool(
    'render_report',
    {
      title: 'Render report (long-running)',
      description:
        "Renders a short Markdown report in `steps` steps over `seconds` seconds and stores it in the user's files. Runs as a task when the client supports tasks, reporting each step.",
      inputSchema: z.object({
        username: z.string().describe('Injected by the host: the authenticated user'),
        title: z.string().min(1).max(200).describe('Report title'),
        seconds: z.number().min(0).max(MAX_TASK_SECONDS).default(5).describe('Total duration'),
        steps: z.number().int().min(1).max(1000).default(5).describe('Number of steps'),
      }),
    },
    async (args, ctx) => {
      const work: TaskWork = async (task) => {
        for (let step = 1; step <= args.steps; step++) {
          await task.sleep((args.seconds * 1000) / args.steps);
          task.update(`step ${step}/${args.steps}`);
        }
        return renderReport(args.username, args.title, args.steps);
      };
      if (declaresTasks(server, ctx)) return store.start(work, { statusMessage: 'rendering' });
      return runInline(ctx, args.steps, work);
    },
  );

  if (options.testTools) registerTestTools(server);
  return server;
}

/** The tools only tests see: misbehaving tasks, and what the server saw of them. */
function registerTestTools(server: McpServer): void {
  server.registerTool(
    'task_scenario',
    {
      title: 'Task scenario (tests)',
      description:
        'A task that misbehaves as asked: `fail` fails with a JSON-RPC error, `silent` stays working without a word for `seconds` then completes, `ask` needs an answer (a form with `confirm`), `cancelled` cancels itself, `stubborn` works `seconds` even when cancelled. `poll_ms` is the poll interval the task asks for; `listen` how subscriptions/listen for it is answered (`refuse`: Method not found, `ignore`: acknowledged without it). Needs a client that supports tasks.',
      inputSchema: z.object({
        scenario: z.enum(['fail', 'silent', 'ask', 'cancelled', 'stubborn']),
        seconds: z.number().min(0).max(MAX_TASK_SECONDS).default(1),
        poll_ms: z.number().int().min(1).max(60_000).optional(),
        listen: z.enum(['serve', 'refuse', 'ignore']).optional(),
      }),
    },
    async ({ scenario, seconds, poll_ms, listen }, ctx) => {
      if (!declaresTasks(server, ctx)) {
        return {
          content: [{ type: 'text', text: 'task_scenario needs the tasks extension' }],
          isError: true,
        };
      }
      const options = { statusMessage: 'starting', pollIntervalMs: poll_ms, listen };
      return store.start(async (task) => {
        if (scenario === 'silent') {
          await task.sleep(seconds * 1000);
          return text(`silent for ${seconds}s`);
        }
        if (scenario === 'stubborn') {
          await sleep(seconds * 1000);
          return text(`worked ${seconds}s`);
        }
        await task.sleep(100);
        task.update('working');
        if (scenario === 'fail') throw new ScenarioFailure('render failed: the renderer crashed');
        if (scenario === 'cancelled') return task.cancelSelf('cancelled by the server');
        const answer = await task.ask({
          mode: 'form',
          message: 'Publish the report?',
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Publish' } },
            required: ['confirm'],
          },
        });
        return text(JSON.stringify(answer));
      }, options);
    },
  );

  server.registerTool(
    'task_record',
    {
      title: 'Task record (tests)',
      description:
        'What this server process saw of a task: its status, how many tasks/get and tasks/cancel requests, the tasks/update answers, and its subscriptions (`listens` opened, `subscriptions` open, `notifications` sent). Without `task_id`, the latest task.',
      inputSchema: z.object({ task_id: z.string().optional() }),
    },
    async ({ task_id }) => {
      const record = store.record(task_id);
      return record ? v21Result({ results: record }) : text('no such task', true);
    },
  );
}

/** A JSON-RPC error a scenario fails with: the task turns `failed` carrying it. */
class ScenarioFailure extends Error {
  readonly code = -32603;
}

/** SEP-2663: only to a request that declared the extension, on the 2026-07-28 protocol. */
function declaresTasks(server: McpServer, ctx: ServerContext): boolean {
  const version = server.server.getNegotiatedProtocolVersion();
  if (version === undefined || version < '2026-07-28') return false;
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** Without tasks: the same work inside the call, each step a notifications/progress. */
async function runInline(ctx: ServerContext, steps: number, work: TaskWork): Promise<CallToolResult> {
  const signal = ctx.mcpReq.signal;
  let step = 0;
  return work({
    sleep: (ms) => sleep(ms, signal),
    update: (message) => {
      step += 1;
      void reportProgress(ctx, step, steps, message);
    },
    ask: async () => ({ action: 'cancel' }),
    cancelSelf: () => text('cancelled', true),
  });
}

async function renderReport(username: string, title: string, steps: number): Promise<CallToolResult> {
  const files = workspace(username);
  const body = `# ${title}\n\nRendered in ${steps} steps by a task.\n`;
  const artifact = await files.writeArtifact('task-report.md', body, {
    description: `Report "${title}"`,
    category: 'report',
  });
  return v21Result({
    results: { status: 'completed', title, steps },
    artifacts: [artifact],
  });
}

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError && { isError }) };
}

if (isMainModule(import.meta.url)) {
  const testTools = process.argv.slice(2).includes(TEST_TOOLS_FLAG);
  await runServer(() => createTasksServer({ testTools }), { name: 'tasks', entry: taskListenEntry(store) });
}
