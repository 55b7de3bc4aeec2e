import { FerryError } from '@ferry/contract';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { CallOptions, ElicitationResult } from './connection.js';
import { subscribeToTask } from './task-subscription.js';
import { TASK_HANDLE_META, TASKS_EXTENSION, TASKS_OPT_IN, taskTap } from './task-tap.js';

// A tools/call that may answer with a task (MCP tasks extension, SEP-2663). On a 2026-07-28
// connection to a server that offers the extension, the call declares it; when the server
// answers with a task, the call subscribes to the task's notifications/tasks (subscriptions/listen)
// and polls tasks/get, taking whichever brings the next state first, until the task ends; the
// caller sees one call as before:
//   - each change of the task (status, message, lastUpdatedAt) is reported through `onProgress`,
//     which is what keeps the watchdog's idle clock from running out: a task that keeps moving
//     lives as long as the hard cap allows, one that goes silent times out like any call;
//   - `input_required` questions go to the call's own `onElicitation` (the watchdog stops its idle
//     clock while the user answers), answers back with tasks/update;
//   - aborting `signal` closes the subscription and sends tasks/cancel;
//   - `completed` returns the task's CallToolResult (its files are collected as for any call),
//     `failed` throws the task's JSON-RPC error, `cancelled` (by the server) throws.

/** Bounds of the poll interval a server asks for. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
/** When the server names no interval. */
const DEFAULT_POLL_MS = 1_000;
/**
 * The poll interval while the server has acknowledged notifications for the task: polling is then
 * only the check that the stream has not silently stopped, and 10 s keeps two such checks inside
 * the watchdog's default 30 s idle limit.
 */
const SUBSCRIBED_POLL_MS = 10_000;
/** One tasks/get, tasks/update or tasks/cancel: a plain request, the SDK's clock bounds it. */
const TASK_REQUEST_TIMEOUT_MS = 60_000;

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  lastUpdatedAt: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  inputRequests: z
    .record(
      z.string(),
      z.looseObject({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() }),
    )
    .optional(),
});
type Task = z.infer<typeof TaskSchema>;
const AckSchema = z.looseObject({});
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

type SdkCallOptions = NonNullable<Parameters<Client['callTool']>[1]>;

/**
 * `client.callTool(request, sdkOptions)`, following the task when the server answers with one.
 * `call` is the pipeline's side of the call: its cancel, progress and questions.
 */
export async function callToolFollowingTasks(
  client: Client,
  request: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  sdkOptions: SdkCallOptions,
  call: Pick<CallOptions, 'signal' | 'onProgress' | 'onElicitation'>,
): Promise<CallToolResult> {
  const transport = client.transport;
  if (transport === undefined || !offersTasks(client)) return client.callTool(request, sdkOptions);
  taskTap(transport);
  const result = await client.callTool(
    { ...request, _meta: { ...request._meta, [TASKS_OPT_IN]: true } },
    sdkOptions,
  );
  const handle = result._meta?.[TASK_HANDLE_META];
  if (handle === undefined) return result;
  const parsed = TaskSchema.safeParse(handle);
  if (!parsed.success)
    throw new FerryError('E_TOOL_ERROR', `The server answered with an invalid task: ${parsed.error.message}`);
  return followTask(client, parsed.data, call);
}

/** A modern-era connection whose server declared the extension in server/discover. */
function offersTasks(client: Client): boolean {
  if (client.getProtocolEra() !== 'modern') return false;
  const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

async function followTask(
  client: Client,
  created: Task,
  call: Pick<CallOptions, 'signal' | 'onProgress' | 'onElicitation'>,
): Promise<CallToolResult> {
  const { signal } = call;
  const taskId = created.taskId;
  const tap = taskTap(client.transport as NonNullable<Client['transport']>);
  let wake: ((task: Task) => void) | undefined;
  /** The latest notified state that arrived while no wait was on (a question being answered). */
  let pending: Task | undefined;
  const stopListening = tap.onTaskNotification(taskId, (params) => {
    const parsed = TaskSchema.safeParse(params);
    if (!parsed.success) return;
    if (wake) wake(parsed.data);
    else pending = parsed.data;
  });
  const subscription = TERMINAL.has(created.status) ? undefined : subscribeToTask(client, tap, taskId);
  let updates = 0;
  let seen = '';
  /** Input request keys already answered: a poll repeats them until the server moves on. */
  const answered = new Set<string>();
  const observe = (task: Task) => {
    const signature = `${task.status}\n${task.statusMessage ?? ''}\n${task.lastUpdatedAt ?? ''}`;
    if (signature === seen) return;
    seen = signature;
    updates += 1;
    call.onProgress?.({ progress: updates, message: task.statusMessage ?? task.status });
  };
  const get = (options: { signal: AbortSignal }) =>
    client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, {
      signal: options.signal,
      timeout: TASK_REQUEST_TIMEOUT_MS,
    }) as Promise<Task>;

  try {
    let task = created;
    for (;;) {
      observe(task);
      switch (task.status) {
        case 'completed':
          return asCallToolResult(task);
        case 'failed': {
          const error = task.error ?? { code: -32603, message: task.statusMessage ?? 'The task failed' };
          throw new ProtocolError(error.code, error.message, error.data);
        }
        case 'cancelled':
          throw new FerryError(
            'E_TOOL_ERROR',
            `The server cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
          );
        case 'input_required':
          await answer(client, task, answered, call);
          break;
      }
      if (pending !== undefined) {
        task = pending;
        pending = undefined;
        continue;
      }
      const asked = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs ?? DEFAULT_POLL_MS));
      const interval = subscription?.live ? Math.max(asked, SUBSCRIBED_POLL_MS) : asked;
      task = await nextState(interval, signal, get, (listener) => {
        wake = listener;
      });
    }
  } catch (error) {
    if (signal.aborted) {
      subscription?.close();
      // Cooperative (SEP-2663): the ack says it was heard, not that the work stopped. Not awaited
      // past its send: a watchdog that gave up is about to kill a local server anyway.
      void client
        .request({ method: 'tasks/cancel', params: { taskId } }, AckSchema, {
          timeout: TASK_REQUEST_TIMEOUT_MS,
        })
        .catch(() => undefined);
      throw signal.reason ?? error;
    }
    throw error;
  } finally {
    subscription?.close();
    stopListening();
  }
}

/** The next state: a notification for the task, or the poll after `interval`, whichever first. */
function nextState(
  interval: number,
  signal: AbortSignal,
  get: (options: { signal: AbortSignal }) => Promise<Task>,
  onNotification: (listener: ((task: Task) => void) | undefined) => void,
): Promise<Task> {
  return new Promise<Task>((resolve, reject) => {
    const local = new AbortController();
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      onNotification(undefined);
      settle();
    };
    const onAbort = () => {
      local.abort(signal.reason);
      finish(() => reject(signal.reason));
    };
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    onNotification((task) => {
      local.abort();
      finish(() => resolve(task));
    });
    const timer = setTimeout(() => {
      get({ signal: local.signal }).then(
        (task) => finish(() => resolve(task)),
        (error: unknown) => {
          if (!local.signal.aborted) finish(() => reject(error));
        },
      );
    }, interval);
  });
}

/** Answers the task's open questions that were not answered yet, with one tasks/update. */
async function answer(
  client: Client,
  task: Task,
  answered: Set<string>,
  call: Pick<CallOptions, 'signal' | 'onElicitation'>,
): Promise<void> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
    if (answered.has(key)) continue;
    answered.add(key);
    if (request.method !== 'elicitation/create') {
      throw new FerryError(
        'E_TOOL_ERROR',
        `The task asked for ${request.method}, which Ferry does not answer`,
      );
    }
    responses[key] = await elicit(request.params ?? {}, call);
    if (call.signal.aborted) throw call.signal.reason;
  }
  if (Object.keys(responses).length === 0) return;
  await client.request(
    { method: 'tasks/update', params: { taskId: task.taskId, inputResponses: responses } },
    AckSchema,
    { signal: call.signal, timeout: TASK_REQUEST_TIMEOUT_MS },
  );
}

/** A task's elicitation goes to the call that owns the task (form mode only, as for a call). */
async function elicit(
  params: Record<string, unknown>,
  call: Pick<CallOptions, 'onElicitation'>,
): Promise<ElicitationResult> {
  const mode = params.mode;
  if (call.onElicitation === undefined || (mode !== undefined && mode !== 'form'))
    return { action: 'cancel' };
  const schema = params.requestedSchema;
  return call.onElicitation({
    message: typeof params.message === 'string' ? params.message : '',
    requestedSchema: typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {},
  });
}

function asCallToolResult(task: Task): CallToolResult {
  const result = task.result ?? {};
  const content = Array.isArray(result.content) ? result.content : [];
  return { ...result, content } as CallToolResult;
}
