import type { Client, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { TaskTap } from './task-tap.js';

// A subscriptions/listen for one task's notifications/tasks (SEP-2663, "Task Status
// Notifications"). The SDK's listen() does the stream's bookkeeping (ack, graceful close, close =
// abort + notifications/cancelled on every transport) but its filter type knows no `taskIds`, and
// the honored filter it reports drops them: the tap declares the extension on the request and
// tells whether the server's ack listed the task. The notifications themselves reach the follower
// through the tap. Anything short of an ack naming the task (an error, Method not found, an ack
// without it, a stream that ends) leaves polling as it was.

/** How long the server has to acknowledge; polling goes on meanwhile. */
const ACK_TIMEOUT_MS = 30_000;

export interface TaskSubscription {
  /** The server acknowledged the task and the stream is still open. */
  readonly live: boolean;
  /** Ends the subscription (idempotent). */
  close(): void;
}

export function subscribeToTask(client: Client, tap: TaskTap, taskId: string): TaskSubscription {
  const abort = new AbortController();
  let acknowledged = false;
  let open = true;
  const stopAck = tap.onTaskAcknowledged(taskId, () => {
    acknowledged = true;
  });
  const ended = () => {
    open = false;
    stopAck();
  };
  const filter = { taskIds: [taskId] } as SubscriptionFilter;
  client
    .listen(filter, { signal: abort.signal, timeout: ACK_TIMEOUT_MS })
    .then((subscription) => subscription.closed.then(ended), ended);
  return {
    get live() {
      return open && acknowledged;
    },
    close() {
      ended();
      abort.abort();
    },
  };
}
