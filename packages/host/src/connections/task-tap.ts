import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport } from '@modelcontextprotocol/client';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { rememberBounded, takeCallMeta } from './private-meta.js';

// The SDK (2.4) speaks the 2026-07-28 wire but not the tasks extension (SEP-2663): its result
// decoder rejects `resultType: "task"` as an unsupported result type and drops the handle with
// it, and it has no way to add an extension to one request's capabilities. This tap sits on the
// connection's transport, the one place that sees both directions whole:
//   - outbound: a tools/call carrying TASKS_OPT_IN in `_meta` gets the extension added to the
//     per-request client capabilities the SDK attached, and the private key removed (it never
//     reaches the wire);
//   - inbound: that call's `resultType: "task"` answer becomes an ordinary-looking CallToolResult
//     holding the task under TASK_HANDLE_META, which task-call.ts follows (isError keeps the SDK's
//     output-schema check away from the placeholder);
//   - outbound: a subscriptions/listen naming `taskIds` gets the extension added the same way (the
//     SEP requires it there, and the SDK's listen() sends only its own capabilities);
//   - inbound `notifications/tasks` for a followed task go to its listener;
//   - inbound `notifications/subscriptions/acknowledged` tell the task's ack listener when they
//     list its id, and go on to the SDK (whose listen() waits for them but drops `taskIds`).

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Ferry-private request `_meta` key: "declare the tasks extension on this call". */
export const TASKS_OPT_IN = 'dev.ferry/tasks-opt-in';
/** Ferry-private result `_meta` key holding the CreateTaskResult the server answered. */
export const TASK_HANDLE_META = 'dev.ferry/task-handle';

export interface TaskTap {
  /** Calls `listener` with each notifications/tasks for `taskId` until the returned stop runs. */
  onTaskNotification(taskId: string, listener: (task: Record<string, unknown>) => void): () => void;
  /** Calls `listener` when a server acknowledges a subscription to `taskId`, until the stop runs. */
  onTaskAcknowledged(taskId: string, listener: () => void): () => void;
}

const taps = new WeakMap<Transport, TaskTap>();

/** The tap of `transport`, installed on first use (after `Client.connect` set its onmessage). */
export function taskTap(transport: Transport): TaskTap {
  const existing = taps.get(transport);
  if (existing) return existing;
  /** Ids of tools/call requests in flight that declared the extension. */
  const declared = new Map<RequestId, true>();
  const listeners = new Map<string, (task: Record<string, unknown>) => void>();
  const ackListeners = new Map<string, () => void>();

  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(declare(message, declared), options);
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ('method' in message && message.method === 'notifications/tasks' && !('id' in message)) {
      const params = message.params as Record<string, unknown> | undefined;
      const listener = typeof params?.taskId === 'string' ? listeners.get(params.taskId) : undefined;
      // Consumed when someone follows the task: the SDK knows no such notification.
      if (listener && params) return listener(params);
    }
    if ('method' in message && message.method === 'notifications/subscriptions/acknowledged') {
      const taskIds = (message.params as { notifications?: { taskIds?: unknown } } | undefined)?.notifications
        ?.taskIds;
      if (Array.isArray(taskIds)) for (const taskId of taskIds) ackListeners.get(String(taskId))?.();
    }
    deliver?.call(transport, handOver(message, declared), extra);
  };

  const tap: TaskTap = {
    onTaskNotification(taskId, listener) {
      listeners.set(taskId, listener);
      return () => {
        if (listeners.get(taskId) === listener) listeners.delete(taskId);
      };
    },
    onTaskAcknowledged(taskId, listener) {
      ackListeners.set(taskId, listener);
      return () => {
        if (ackListeners.get(taskId) === listener) ackListeners.delete(taskId);
      };
    },
  };
  taps.set(transport, tap);
  return tap;
}

function declare(message: JSONRPCMessage, declared: Map<RequestId, true>): JSONRPCMessage {
  if (!('method' in message) || !('id' in message)) return message;
  if (message.method === 'subscriptions/listen') return declareOnListen(message);
  const taken = takeCallMeta(message, TASKS_OPT_IN);
  if (taken.id === undefined) return message;
  const capabilities = taken.meta?.[CLIENT_CAPABILITIES_META_KEY];
  // A legacy-era request has no per-request capabilities: nothing to declare (SEP-2663 applies
  // to 2026-07-28 only), the private key is still removed.
  if (typeof capabilities !== 'object' || capabilities === null) return taken.message;
  rememberBounded(declared, taken.id, true);
  const params = (taken.message as { params: Record<string, unknown> }).params;
  const _meta = { ...taken.meta, [CLIENT_CAPABILITIES_META_KEY]: withTasks(capabilities) };
  return { ...taken.message, params: { ...params, _meta } } as JSONRPCMessage;
}

/** A listen for task ids declares the extension (SEP-2663: -32021 otherwise). */
function declareOnListen(message: JSONRPCMessage): JSONRPCMessage {
  const params = (message as { params?: { _meta?: Record<string, unknown>; notifications?: unknown } })
    .params;
  const taskIds = (params?.notifications as { taskIds?: unknown } | undefined)?.taskIds;
  const meta = params?._meta;
  if (!Array.isArray(taskIds) || meta === undefined) return message;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (typeof capabilities !== 'object' || capabilities === null) return message;
  const _meta = { ...meta, [CLIENT_CAPABILITIES_META_KEY]: withTasks(capabilities) };
  return { ...message, params: { ...params, _meta } } as JSONRPCMessage;
}

function withTasks(capabilities: object): object {
  const { extensions } = capabilities as { extensions?: Record<string, unknown> };
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

function handOver(message: JSONRPCMessage, declared: Map<RequestId, true>): JSONRPCMessage {
  if (!('id' in message) || 'method' in message || message.id === undefined) return message;
  if (!declared.delete(message.id)) return message;
  if (!('result' in message)) return message;
  const result = message.result as Record<string, unknown>;
  // Only a call that declared the extension may get a task; any other keeps the SDK's verdict.
  if (result.resultType !== 'task') return message;
  const { resultType: _type, ...task } = result;
  return {
    ...message,
    result: { resultType: 'complete', content: [], isError: true, _meta: { [TASK_HANDLE_META]: task } },
  } as JSONRPCMessage;
}
