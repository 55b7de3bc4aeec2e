import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  payloadOf,
  REPO_ROOT,
  serverCommand,
  startHttp,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import {
  Client,
  type JSONRPCNotification,
  StreamableHTTPClientTransport,
  type SubscriptionFilter,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// The tasks example spoken to by hand, as the wire says (SEP-2663), without Ferry's client side:
// the server answers a tools/call that declared the extension with a task handle, then tasks/get,
// tasks/update and tasks/cancel steer it, and a subscriptions/listen for its id brings
// notifications/tasks. The SDK client rejects `resultType: "task"`, so the handle is read off the
// transport; its listen() has no way to declare the extension, so the test adds it on the way out.

const EXT = 'io.modelcontextprotocol/tasks';
const Task = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional() });
type TaskView = z.infer<typeof Task> & { result?: unknown; error?: { code: number; message: string } };

interface Connected {
  client: Client;
  /** The raw result of each response, by request id. */
  raw: Map<string | number, Record<string, unknown>>;
  /** Every notification received, raw. */
  notes: JSONRPCNotification[];
  /** Whether subscriptions/listen requests declare the extension. */
  declareOnListen: boolean;
  close(): Promise<void>;
}

async function connect(transport: Transport, close: () => Promise<void>): Promise<Connected> {
  const client = new Client(
    { name: 'test-tasks', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  const raw = new Map<string | number, Record<string, unknown>>();
  const notes: JSONRPCNotification[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('id' in message && 'result' in message && message.id !== undefined)
      raw.set(message.id, message.result as Record<string, unknown>);
    if ('method' in message && !('id' in message)) notes.push(message);
    deliver?.call(transport, message, extra);
  };
  const connected: Connected = { client, raw, notes, declareOnListen: true, close };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!connected.declareOnListen || !('method' in message) || message.method !== 'subscriptions/listen')
      return send(message, options);
    const params = message.params as { _meta: Record<string, Record<string, unknown>> };
    const caps = params._meta['io.modelcontextprotocol/clientCapabilities'];
    const _meta = {
      ...params._meta,
      'io.modelcontextprotocol/clientCapabilities': { ...caps, extensions: { [EXT]: {} } },
    };
    return send({ ...message, params: { ...params, _meta } }, options);
  };
  return connected;
}

/** notifications/tasks and acknowledgements received for `taskId` (the ack lists it). */
function notesFor(c: Connected, taskId: string) {
  const tasks = c.notes.filter(
    (note) => note.method === 'notifications/tasks' && note.params?.taskId === taskId,
  ) as unknown as { params: TaskView & { _meta: Record<string, unknown>; lastUpdatedAt: string } }[];
  const acks = c.notes.filter(
    (note) =>
      note.method === 'notifications/subscriptions/acknowledged' &&
      (note.params?.notifications as { taskIds?: string[] } | undefined)?.taskIds?.includes(taskId),
  );
  return { tasks: tasks.map((note) => note.params), acks };
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** tools/call declaring the extension; the task handle the server answered with. */
async function startTask(c: Connected, name: string, args: Record<string, unknown>): Promise<TaskView> {
  const caps = { extensions: { [EXT]: {} } };
  const error = await c.client
    .callTool({ name, arguments: args, _meta: { 'io.modelcontextprotocol/clientCapabilities': caps } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(String(error)).toMatch(/Unsupported result type 'task'/);
  const handle = [...c.raw.values()].reverse().find((result) => result.resultType === 'task');
  if (!handle) throw new Error('no task handle');
  return handle as TaskView;
}

const get = (c: Connected, taskId: string) =>
  c.client.request({ method: 'tasks/get', params: { taskId } }, Task) as Promise<TaskView>;

async function until(c: Connected, taskId: string, done: (task: TaskView) => boolean): Promise<TaskView[]> {
  const seen: TaskView[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const task = await get(c, taskId);
    seen.push(task);
    if (done(task)) return seen;
    if (Date.now() > deadline) throw new Error(`task stuck: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(['stdio', 'http'] as const)('tasks server over %s', (kind) => {
  let root: TempDir;
  let c: Connected;
  beforeAll(async () => {
    root = await tempDir();
    if (kind === 'stdio') {
      const transport = new StdioClientTransport({
        ...serverCommand('tasks'),
        cwd: REPO_ROOT,
        env: { ...getDefaultEnvironment(), FERRY_WORKSPACE_ROOT: root.path },
      });
      c = await connect(transport, () => transport.close());
    } else {
      const server = await startHttp('tasks', root.path);
      const transport = new StreamableHTTPClientTransport(server.url);
      c = await connect(transport, async () => {
        await transport.close();
        await server.stop();
      });
    }
  });
  afterAll(async () => {
    await c?.close();
    await root?.cleanup();
  });

  it('offers the extension in server/discover', () => {
    expect(c.client.getProtocolEra()).toBe('modern');
    expect((c.client.getServerCapabilities() as { extensions?: object }).extensions).toEqual({ [EXT]: {} });
  });

  it('answers with a task that reports each step, then completes with the report file', async () => {
    const handle = await startTask(c, 'render_report', {
      username: 'alice',
      title: 'Q3',
      seconds: 0.6,
      steps: 3,
    });
    expect(handle).toMatchObject({ status: 'working', statusMessage: 'rendering', pollIntervalMs: 200 });
    expect(handle.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const seen = await until(c, handle.taskId, (task) => task.status === 'completed');
    const messages = [...new Set(seen.map((task) => task.statusMessage))];
    expect(messages.at(-1)).toBe('done');
    expect(messages.filter((m) => m?.startsWith('step')).length).toBeGreaterThanOrEqual(2);
    const result = seen.at(-1)?.result as { content: { type: string; text: string }[] };
    expect(payloadOf(result as never).results).toEqual({ status: 'completed', title: 'Q3', steps: 3 });
    expect(await readFile(join(root.path, 'alice', 'task-report.md'), 'utf8')).toContain('# Q3');
  });

  it('runs as an ordinary call with progress when the client did not declare tasks', async () => {
    const updates: unknown[] = [];
    const result = await c.client.callTool(
      { name: 'render_report', arguments: { username: 'bob', title: 'Plain', seconds: 0.2, steps: 2 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(payloadOf(result).results).toEqual({ status: 'completed', title: 'Plain', steps: 2 });
    expect(updates[0]).toEqual({ progress: 1, total: 2, message: 'step 1/2' });
  });

  it('stops a task on tasks/cancel and records that it did', async () => {
    const handle = await startTask(c, 'render_report', {
      username: 'alice',
      title: 'Long',
      seconds: 30,
      steps: 30,
    });
    await c.client.request({ method: 'tasks/cancel', params: { taskId: handle.taskId } }, z.looseObject({}));
    const seen = await until(c, handle.taskId, (task) => task.status !== 'working');
    expect(seen.at(-1)?.status).toBe('cancelled');
    const record = await c.client.callTool({ name: 'task_record', arguments: { task_id: handle.taskId } });
    expect(payloadOf(record).results).toMatchObject({ status: 'cancelled', cancels: 1 });
  });

  it('fails a task with its JSON-RPC error, and cancels one on its own', async () => {
    const failing = await startTask(c, 'task_scenario', { scenario: 'fail' });
    const failed = (await until(c, failing.taskId, (task) => task.status === 'failed')).at(-1);
    expect(failed?.error).toEqual({ code: -32603, message: 'render failed: the renderer crashed' });
    const quitting = await startTask(c, 'task_scenario', { scenario: 'cancelled' });
    const cancelled = (await until(c, quitting.taskId, (task) => task.status === 'cancelled')).at(-1);
    expect(cancelled?.statusMessage).toBe('cancelled by the server');
  });

  it('asks through input_required and goes on with the tasks/update answer', async () => {
    const handle = await startTask(c, 'task_scenario', { scenario: 'ask' });
    const asking = (await until(c, handle.taskId, (task) => task.status === 'input_required')).at(
      -1,
    ) as unknown as {
      inputRequests: Record<string, { method: string; params: { message: string } }>;
    };
    expect(Object.entries(asking.inputRequests)).toEqual([
      [
        'q1',
        expect.objectContaining({
          method: 'elicitation/create',
          params: expect.objectContaining({ message: 'Publish the report?' }),
        }),
      ],
    ]);
    const answer = { action: 'accept', content: { confirm: true } };
    await c.client.request(
      { method: 'tasks/update', params: { taskId: handle.taskId, inputResponses: { q1: answer } } },
      z.looseObject({}),
    );
    const done = (await until(c, handle.taskId, (task) => task.status === 'completed')).at(-1) as TaskView;
    expect(done.result).toEqual({ content: [{ type: 'text', text: JSON.stringify(answer) }] });
  });

  it('pushes notifications/tasks to a subscriptions/listen for the task, then ends the stream', async () => {
    const handle = await startTask(c, 'render_report', {
      username: 'alice',
      title: 'Pushed',
      seconds: 0.6,
      steps: 3,
    });
    const subscription = await c.client.listen({ taskIds: [handle.taskId] } as SubscriptionFilter);
    // The server answers the listen request once the task has ended: its graceful close.
    expect(await subscription.closed).toBe('graceful');
    const { tasks, acks } = notesFor(c, handle.taskId);
    expect(acks).toHaveLength(1);
    const subscriptionId = (acks[0]?.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];
    expect(subscriptionId).toBeDefined();
    expect(tasks.every((task) => task._meta[SUBSCRIPTION_ID] === subscriptionId)).toBe(true);
    // The current state at once, each step, then the end with its result, as tasks/get has it.
    expect(tasks[0]?.status).toBe('working');
    expect(tasks.filter((task) => task.statusMessage?.startsWith('step')).length).toBe(3);
    const last = tasks.at(-1);
    expect(last).toMatchObject({ status: 'completed', statusMessage: 'done', pollIntervalMs: 200 });
    expect(payloadOf(last?.result as never).results).toEqual({
      status: 'completed',
      title: 'Pushed',
      steps: 3,
    });
    // The same DetailedTask as tasks/get (whose result `_meta` is the SDK's serverInfo).
    const { _meta: _stamp, ...pushed } = last as typeof last & { _meta: unknown };
    const { _meta: _server, ...polled } = (await get(c, handle.taskId)) as TaskView & { _meta: unknown };
    expect(pushed).toEqual(polled);
    const record = await c.client.callTool({ name: 'task_record', arguments: { task_id: handle.taskId } });
    expect(payloadOf(record).results).toMatchObject({
      listens: 1,
      subscriptions: 0,
      notifications: tasks.length,
    });
  });

  it('refuses a task subscription without the extension (-32021) and acknowledges no unknown task', async () => {
    const handle = await startTask(c, 'render_report', {
      username: 'alice',
      title: 'Quiet',
      seconds: 0.2,
      steps: 1,
    });
    c.declareOnListen = false;
    try {
      await expect(c.client.listen({ taskIds: [handle.taskId] } as SubscriptionFilter)).rejects.toMatchObject(
        {
          code: -32021,
          data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
        },
      );
    } finally {
      c.declareOnListen = true;
    }
    const unknown = await c.client.listen({ taskIds: ['no-such-task'] } as SubscriptionFilter);
    expect(await unknown.closed).toBe('graceful');
    const ack = c.notes.findLast((note) => note.method === 'notifications/subscriptions/acknowledged');
    expect(ack?.params?.notifications).toEqual({ taskIds: [] });
    const record = await c.client.callTool({ name: 'task_record', arguments: { task_id: handle.taskId } });
    expect(payloadOf(record).results).toMatchObject({ listens: 0, notifications: 0 });
  });

  it('refuses an unknown task id', async () => {
    await expect(get(c, 'no-such-task')).rejects.toThrow(/Unknown task/);
  });
});
