// The requests and broadcasts this instance is waiting on, by request id: each settles exactly
// once, by its answer(s), its timeout, its target's death or the bus closing.
import { randomUUID } from 'node:crypto';
import { FerryError } from '@ferry/contract';
import type { BusReply } from './bus-messages.js';
import { fromCrossingError, InstanceGoneError } from './instance-bus.js';

interface PendingRequest {
  type: 'request';
  target: string;
  kind: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface PendingBroadcast {
  type: 'broadcast';
  kind: string;
  resolve(value: unknown[]): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  answers: Map<string, unknown>;
  /** Known once PUBLISH returned: the subscribers that received it. */
  expected?: number;
}

type Pending = PendingRequest | PendingBroadcast;

export class PendingAnswers {
  private readonly pending = new Map<string, Pending>();

  /** A request to `target`; its promise rejects as a timeout after `timeoutMs`. */
  expectRequest(target: string, kind: string, timeoutMs: number): { id: string; answer: Promise<unknown> } {
    const id = randomUUID();
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new InstanceGoneError(target, kind, 'instance_timeout', timeoutMs)),
        timeoutMs,
      );
      this.pending.set(id, { type: 'request', target, kind, resolve, reject, timer });
    });
    return { id, answer };
  }

  /** A broadcast; `heardBy(n)` once PUBLISH said how many instances received it. */
  expectBroadcast(
    kind: string,
    timeoutMs: number,
  ): { id: string; answers: Promise<unknown[]>; heardBy(receivers: number): void } {
    const id = randomUUID();
    let entry: PendingBroadcast | undefined;
    const answers = new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, broadcastTimeout(kind, timeoutMs, entry)), timeoutMs);
      entry = { type: 'broadcast', kind, resolve, reject, timer, answers: new Map() };
      this.pending.set(id, entry);
    });
    return {
      id,
      answers,
      heardBy: (receivers) => {
        if (!entry) return;
        entry.expected = receivers;
        this.complete(id, entry);
      },
    };
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  kindOf(id: string): string {
    return this.pending.get(id)?.kind ?? '';
  }

  /** An answer arrived. Like Promise.all, the first instance that failed fails a broadcast. */
  receive(reply: BusReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return; // late: it timed out, or the bus is closing
    const error = reply.ok
      ? undefined
      : fromCrossingError(
          reply.error ?? {
            code: 'E_INTERNAL',
            message: `Ferry instance ${reply.instance} failed without saying why`,
            details: {},
          },
        );
    if (error || pending.type === 'request') {
      this.settle(reply.id, error ?? { value: reply.value });
      return;
    }
    pending.answers.set(reply.instance, reply.value);
    this.complete(reply.id, pending);
  }

  /** The instances requests are waiting on. */
  targets(): Set<string> {
    const targets = new Set<string>();
    for (const pending of this.pending.values()) if (pending.type === 'request') targets.add(pending.target);
    return targets;
  }

  /** `target` is gone: every request waiting on it fails as such. */
  failTarget(target: string): void {
    for (const [id, pending] of this.pending) {
      if (pending.type === 'request' && pending.target === target) {
        this.settle(id, new InstanceGoneError(target, pending.kind, 'instance_gone'));
      }
    }
  }

  rejectAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, error);
  }

  settle(id: string, outcome: Error | { value: unknown }): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (outcome instanceof Error) pending.reject(outcome);
    else if (pending.type === 'request') pending.resolve(outcome.value);
    else pending.resolve(outcome.value as unknown[]);
  }

  private complete(id: string, pending: PendingBroadcast): void {
    if (pending.expected !== undefined && pending.answers.size >= pending.expected) {
      this.settle(id, { value: [...pending.answers.values()] });
    }
  }
}

function broadcastTimeout(kind: string, timeoutMs: number, entry: PendingBroadcast | undefined): FerryError {
  const answered = entry?.answers.size ?? 0;
  const expected = entry?.expected;
  const message =
    expected === undefined
      ? `No Ferry instance heard "${kind}" within ${timeoutMs} ms`
      : `Only ${answered} of ${expected} Ferry instances answered "${kind}" within ${timeoutMs} ms`;
  return new FerryError('E_INTERNAL', message, {
    reason: 'broadcast_timeout',
    kind,
    answered,
    ...(expected === undefined ? {} : { expected }),
  });
}
