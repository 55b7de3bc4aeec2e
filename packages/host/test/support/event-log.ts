import type { ConnectionEvent } from '../../src/connections/connection-events.js';

/** Records a pool's events and lets a test await the next one that matches. */
export interface EventLog {
  readonly events: ConnectionEvent[];
  listener: (event: ConnectionEvent) => void;
  /** Resolves with the first event from now on (or already recorded, with `past`) that matches. */
  waitFor(match: (event: ConnectionEvent) => boolean, options?: { past?: boolean }): Promise<ConnectionEvent>;
}

export function createEventLog(): EventLog {
  const events: ConnectionEvent[] = [];
  const waiters: { match: (event: ConnectionEvent) => boolean; resolve: (event: ConnectionEvent) => void }[] =
    [];
  return {
    events,
    listener(event) {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.match(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    },
    waitFor(match, options = {}) {
      const seen = options.past ? events.find(match) : undefined;
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}
