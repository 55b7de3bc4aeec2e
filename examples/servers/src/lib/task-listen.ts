// Task status notifications (SEP-2663 "Task Status Notifications", on the 2026-07-28
// subscriptions/listen pattern): a client lists task ids in `params.notifications.taskIds`, the
// server acknowledges the ones it knows with notifications/subscriptions/acknowledged and then
// pushes notifications/tasks (a full DetailedTask) on every change, each stamped with the
// subscription id; once every acknowledged task has ended it answers the listen request (the
// graceful close) and ends the stream. A client that did not declare the extension on the listen
// request gets -32021.
//
// The SDK's entries (serveStdio, createMcpHandler) answer subscriptions/listen themselves and their
// filter knows no taskIds, so this sits in front of them (runServer's `entry` option): on stdio it
// wraps the wire (a client's notifications/cancelled ends a subscription), over HTTP the fetch
// handler (the listen's response is its own SSE stream, closing it ends the subscription). A listen
// without taskIds goes on to the SDK untouched.
import type { McpFetch } from '@ferry/server-kit';
import type { JSONRPCMessage, JSONRPCRequest, Transport } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import type { DetailedTask, TaskStore } from './task-store.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const MISSING_CAPABILITY = -32021;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** SSE comment lines keep an idle HTTP stream from the client's body timeout. */
const KEEP_ALIVE_MS = 15_000;

type RequestId = JSONRPCRequest['id'];

/** Where a subscription's messages go, and how its stream ends. */
interface Stream {
  send(message: JSONRPCMessage): void;
  end(): void;
}

type Plan =
  | { kind: 'error'; response: JSONRPCMessage; status: number }
  /** Starts the subscription; the returned function stops it without a word (the client left). */
  | { kind: 'serve'; start(stream: Stream): () => void };

/** runServer's `entry`: task subscriptions over stdio and Streamable HTTP. */
export function taskListenEntry(store: TaskStore): {
  stdio(wire: Transport): Transport;
  fetch(fetch: McpFetch): McpFetch;
} {
  return { stdio: (wire) => listenOnStdio(store, wire), fetch: (fetch) => listenOverHttp(store, fetch) };
}

/** How to answer `message`, or undefined when it is not a listen for tasks this file serves. */
function plan(store: TaskStore, message: unknown): Plan | undefined {
  const request = message as Partial<JSONRPCRequest> | undefined;
  if (request?.method !== 'subscriptions/listen' || request.id === undefined) return undefined;
  const params = request.params as
    | { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown } }
    | undefined;
  const taskIds = params?.notifications?.taskIds;
  if (!Array.isArray(taskIds) || taskIds.length === 0 || !taskIds.every((id) => typeof id === 'string'))
    return undefined;
  // Only the 2026-07-28 wire has subscriptions/listen: anything else is the SDK's to refuse.
  const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string' || version < '2026-07-28') return undefined;
  const modes = taskIds.map((id) => store.listenMode(id));
  if (modes.includes('ignore')) return undefined;
  const id = request.id;
  if (modes.includes('refuse'))
    return error(id, ProtocolErrorCode.MethodNotFound, 'Method not found: subscriptions/listen', 200);
  const capabilities = params?._meta?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  if (capabilities?.extensions?.[TASKS_EXTENSION] === undefined) {
    return error(id, MISSING_CAPABILITY, 'Missing required client capability', 400, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
  return { kind: 'serve', start: (stream) => subscribe(store, id, taskIds, stream) };
}

function error(id: RequestId, code: number, message: string, status: number, data?: unknown): Plan {
  return {
    kind: 'error',
    status,
    response: { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } },
  };
}

/** Acknowledges the known tasks, pushes their states, closes gracefully once all have ended. */
function subscribe(store: TaskStore, id: RequestId, taskIds: string[], stream: Stream): () => void {
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: id };
  const stops = new Map<string, () => void>();
  let closed = false;
  const stop = () => {
    closed = true;
    for (const unwatch of stops.values()) unwatch();
    stops.clear();
  };
  const finish = () => {
    if (closed) return;
    stop();
    stream.send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: stamp } });
    stream.end();
  };
  const known = taskIds.filter((taskId) => store.listenMode(taskId) !== undefined);
  stream.send({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: stamp, notifications: { taskIds: known } },
  });
  for (const taskId of known) {
    let ended = false;
    const unwatch = store.watch(taskId, (task: DetailedTask) => {
      if (closed) return;
      stream.send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: stamp } });
      if (!TERMINAL.has(task.status)) return;
      ended = true;
      stops.get(taskId)?.();
      stops.delete(taskId);
      if (stops.size === 0) queueMicrotask(finish);
    });
    // `watch` reports the current state at once: a task already ended stays out of `stops`.
    if (unwatch && !ended) stops.set(taskId, unwatch);
    else unwatch?.();
  }
  if (stops.size === 0) queueMicrotask(finish);
  return stop;
}

/** The stdio wire with task subscriptions taken off it before the SDK's entry sees them. */
function listenOnStdio(store: TaskStore, wire: Transport): Transport {
  const open = new Map<RequestId, () => void>();
  const outer: Transport = {
    start: () => wire.start(),
    send: (message, options) => wire.send(message, options),
    close: () => wire.close(),
  };
  const send = (message: JSONRPCMessage) =>
    void wire.send(message).catch((e: unknown) => outer.onerror?.(e as Error));
  wire.onmessage = (message, extra) => {
    const planned = plan(store, message);
    if (planned?.kind === 'error') return send(planned.response);
    if (planned?.kind === 'serve') {
      const id = (message as JSONRPCRequest).id;
      let ended = false;
      const stop = planned.start({
        send,
        end: () => {
          ended = true;
          open.delete(id);
        },
      });
      if (!ended) open.set(id, stop);
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const stop = requestId === undefined ? undefined : open.get(requestId);
      if (stop) {
        open.delete(requestId as RequestId);
        return stop();
      }
    }
    outer.onmessage?.(message, extra);
  };
  wire.onclose = () => {
    for (const stop of open.values()) stop();
    open.clear();
    outer.onclose?.();
  };
  wire.onerror = (e) => outer.onerror?.(e);
  return outer;
}

/** The HTTP handler with task subscriptions answered as their own SSE streams. */
function listenOverHttp(store: TaskStore, fetch: McpFetch): McpFetch {
  return async (request, options) => {
    if (request.method !== 'POST') return fetch(request, options);
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined);
    const planned = plan(store, body);
    if (planned === undefined) return fetch(request, options);
    if (planned.kind === 'error') return Response.json(planned.response, { status: planned.status });
    const encoder = new TextEncoder();
    let stop: (() => void) | undefined;
    let keepAlive: NodeJS.Timeout | undefined;
    let closed = false;
    const close = () => {
      closed = true;
      clearInterval(keepAlive);
      request.signal.removeEventListener('abort', leave);
      stop?.();
    };
    const leave = () => close();
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        const write = (frame: string) => {
          if (!closed) controller.enqueue(encoder.encode(frame));
        };
        keepAlive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS);
        stop = planned.start({
          send: (message) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`),
          end: () => {
            if (closed) return;
            close();
            controller.close();
          },
        });
      },
      cancel: close,
    });
    if (request.signal.aborted) close();
    else request.signal.addEventListener('abort', leave, { once: true });
    return new Response(readable, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' },
    });
  };
}
