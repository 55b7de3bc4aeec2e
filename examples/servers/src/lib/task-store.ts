// The server side of the tasks extension (SEP-2663) for the example: tasks live in this process,
// keyed by an unguessable id; tasks/get, tasks/update and tasks/cancel read and steer them, and
// `watch` feeds notifications/tasks (task-listen.ts serves the subscriptions). The SDK has no tasks
// API for the 2026-07-28 protocol, so the three methods are registered here as custom methods and
// the handle is a tools/call result with `resultType: "task"`.
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Server } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sleep } from './sleep.js';

/** How often clients should poll: short, so tests and the demo feel live. */
const POLL_INTERVAL_MS = 200;
/** Finished tasks are forgotten this long after they were created. */
const TASK_TTL_MS = 10 * 60_000;

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * How a subscriptions/listen naming the task is answered: `serve` (acknowledge, then push
 * notifications/tasks), or, to test clients against other servers, `refuse` (Method not found) or
 * `ignore` (left to the SDK's entry, which knows no task ids and acknowledges none).
 */
export type ListenMode = 'serve' | 'refuse' | 'ignore';

export interface TaskOptions {
  /** Where the task starts: what a client shows first. */
  statusMessage: string;
  /** The pollIntervalMs the task tells clients. @default POLL_INTERVAL_MS */
  pollIntervalMs?: number;
  /** @default 'serve' */
  listen?: ListenMode;
}

/** A DetailedTask: what tasks/get answers and each notifications/tasks carries. */
export type DetailedTask = Record<string, unknown> & { taskId: string; status: Status };

/** What a task's work can do: wait (woken by a cancel), say where it is, ask, give up. */
export interface TaskControl {
  /** Waits `ms`; resolves early once the task is cancelled. */
  sleep(ms: number): Promise<void>;
  /** A new status message (and lastUpdatedAt): what a client shows as progress. */
  update(message: string): void;
  /** Turns the task `input_required` with this elicitation until the client answers it. */
  ask(params: Record<string, unknown>): Promise<unknown>;
  /** Ends the task as `cancelled` by the server's own decision; return what it returns. */
  cancelSelf(message: string): CallToolResult;
}

export type TaskWork = (task: TaskControl) => Promise<CallToolResult>;

interface TaskRecord {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: CallToolResult;
  error?: { code: number; message: string };
  /** Outstanding questions by key, with the resolver of each. */
  questions: Map<string, { params: Record<string, unknown>; answer: (value: unknown) => void }>;
  answers: Record<string, unknown>;
  gets: number;
  cancels: number;
  abort: AbortController;
  pollIntervalMs: number;
  listen: ListenMode;
  /** Open subscriptions' listeners, each called with every state. */
  watchers: Set<(task: DetailedTask) => void>;
  /** Subscriptions opened, and notifications/tasks sent, for tests. */
  listens: number;
  notifications: number;
}

export interface TaskStore {
  /** Starts `work` as a task; the CreateTaskResult to return from the tool handler. */
  start(work: TaskWork, options: TaskOptions): CallToolResult;
  /** Registers tasks/get, tasks/update and tasks/cancel on a server instance. */
  serve(server: Server): void;
  /**
   * Calls `listener` with the task's state now and after each change; the returned function
   * stops it. Undefined for an unknown task.
   */
  watch(taskId: string, listener: (task: DetailedTask) => void): (() => void) | undefined;
  /** How a subscriptions/listen naming the task is answered; undefined for an unknown task. */
  listenMode(taskId: string): ListenMode | undefined;
  /** What the store saw of a task (the latest one without an id), for tests. */
  record(taskId?: string): Record<string, unknown> | undefined;
}

const TaskIdParams = z.object({ taskId: z.string() });

export function createTaskStore(): TaskStore {
  const tasks = new Map<string, TaskRecord>();
  let latest: string | undefined;

  const touch = (task: TaskRecord, status: Status, statusMessage?: string) => {
    task.status = status;
    if (statusMessage !== undefined) task.statusMessage = statusMessage;
    task.lastUpdatedAt = new Date().toISOString();
    notify(task);
  };
  const notify = (task: TaskRecord) => {
    if (task.watchers.size === 0) return;
    const state = detailed(task);
    for (const listener of task.watchers) {
      task.notifications += 1;
      listener(state);
    }
  };
  const terminal = (task: TaskRecord) =>
    task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
  const find = (taskId: string): TaskRecord => {
    const task = tasks.get(taskId);
    if (task === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task');
    return task;
  };
  const view = (task: TaskRecord) => ({
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: task.pollIntervalMs,
  });
  const detailed = (task: TaskRecord): DetailedTask => ({
    ...view(task),
    ...(task.status === 'completed' && task.result && { result: task.result }),
    ...(task.status === 'failed' && task.error && { error: task.error }),
    ...(task.status === 'input_required' && {
      inputRequests: Object.fromEntries(
        [...task.questions].map(([key, q]) => [key, { method: 'elicitation/create', params: q.params }]),
      ),
    }),
  });

  return {
    start(work, options) {
      const now = new Date().toISOString();
      const task: TaskRecord = {
        taskId: randomUUID(),
        status: 'working',
        statusMessage: options.statusMessage,
        createdAt: now,
        lastUpdatedAt: now,
        questions: new Map(),
        answers: {},
        gets: 0,
        cancels: 0,
        abort: new AbortController(),
        pollIntervalMs: options.pollIntervalMs ?? POLL_INTERVAL_MS,
        listen: options.listen ?? 'serve',
        watchers: new Set(),
        listens: 0,
        notifications: 0,
      };
      // Stored before the handle is returned: a tasks/get right after must find it.
      tasks.set(task.taskId, task);
      latest = task.taskId;
      setTimeout(() => tasks.delete(task.taskId), TASK_TTL_MS).unref();
      let asked = 0;
      const control: TaskControl = {
        sleep: (ms) => sleep(ms, task.abort.signal),
        update: (message) => {
          if (!terminal(task) && !task.abort.signal.aborted) touch(task, 'working', message);
        },
        ask: (params) =>
          new Promise((resolve) => {
            asked += 1;
            task.questions.set(`q${asked}`, { params, answer: resolve });
            touch(task, 'input_required', 'waiting for an answer');
          }),
        cancelSelf: (message) => {
          touch(task, 'cancelled', message);
          return { content: [] };
        },
      };
      work(control).then(
        (result) => {
          if (terminal(task)) return;
          if (task.abort.signal.aborted) touch(task, 'cancelled', 'cancelled at the client’s request');
          else {
            task.result = result;
            touch(task, 'completed', 'done');
          }
        },
        (error: unknown) => {
          if (terminal(task)) return;
          const code =
            typeof (error as { code?: unknown }).code === 'number'
              ? (error as { code: number }).code
              : -32603;
          task.error = { code, message: error instanceof Error ? error.message : String(error) };
          touch(task, 'failed', task.error.message);
        },
      );
      return { resultType: 'task', ...view(task) } as unknown as CallToolResult;
    },

    serve(server) {
      server.setRequestHandler('tasks/get', { params: TaskIdParams }, ({ taskId }) => {
        const task = find(taskId);
        task.gets += 1;
        return detailed(task);
      });
      // The SDK lifts `inputResponses` out of every request's params (its multi round-trip
      // support) and hands the well-formed entries over as ctx.mcpReq.inputResponses.
      server.setRequestHandler('tasks/update', { params: TaskIdParams }, ({ taskId }, ctx) => {
        const task = find(taskId);
        const inputResponses = ctx.mcpReq.inputResponses ?? {};
        // Keys not outstanding (already answered, never asked) are ignored, as the SEP says.
        for (const [key, value] of Object.entries(inputResponses)) {
          const question = task.questions.get(key);
          if (question === undefined) continue;
          task.questions.delete(key);
          task.answers[key] = value;
          question.answer(value);
        }
        if (task.status === 'input_required' && task.questions.size === 0) touch(task, 'working', 'answered');
        return {};
      });
      server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, ({ taskId }) => {
        const task = find(taskId);
        task.cancels += 1;
        task.abort.abort();
        // A task waiting for an answer will get none now.
        for (const question of task.questions.values()) question.answer({ action: 'cancel' });
        task.questions.clear();
        return {};
      });
    },

    watch(taskId, listener) {
      const task = tasks.get(taskId);
      if (task === undefined) return undefined;
      // A wrapper of its own, so one listener can watch twice and stop each separately.
      const watcher = (state: DetailedTask) => listener(state);
      task.watchers.add(watcher);
      task.listens += 1;
      task.notifications += 1;
      listener(detailed(task));
      return () => {
        task.watchers.delete(watcher);
      };
    },

    listenMode(taskId) {
      return tasks.get(taskId)?.listen;
    },

    record(taskId) {
      const id = taskId ?? latest;
      const task = id === undefined ? undefined : tasks.get(id);
      if (task === undefined) return undefined;
      return {
        task_id: task.taskId,
        status: task.status,
        status_message: task.statusMessage ?? null,
        gets: task.gets,
        cancels: task.cancels,
        answers: task.answers,
        listens: task.listens,
        subscriptions: task.watchers.size,
        notifications: task.notifications,
      };
    },
  };
}
