// A graceful stop (SIGTERM, `ferry start` interrupted): before anything closes, the instance
// drains. GET /readyz answers 503 at once, so a load balancer stops sending it traffic; new tool
// calls, uploads and chat turns are refused with E_SHUTTING_DOWN (503, retryable), so a client
// retries them elsewhere; the calls and uploads already running get a grace period to finish.
// Whatever is still running after it is cancelled by the close that follows, with a clear event.
import { ApiError } from '../http/api-error.js';

export interface Drain {
  readonly draining: boolean;
  /** Throws E_SHUTTING_DOWN (503) once the instance drains: `what` names the refused work. */
  refuseNewWork(what: string): void;
  /** Counts one piece of work the stop waits for (an upload); call the result when it ends. */
  enter(): () => void;
  /** Starts draining (idempotent). */
  begin(): void;
  /** Resolves true once no counted work is left, false when `deadline` (epoch ms) comes first. */
  idle(deadline: number): Promise<boolean>;
}

export function createDrain(now: () => number = Date.now): Drain {
  let draining = false;
  let inFlight = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  return {
    get draining() {
      return draining;
    },
    refuseNewWork(what) {
      if (!draining) return;
      throw new ApiError(
        'E_SHUTTING_DOWN',
        `This Ferry instance is shutting down: ${what} was not started`,
        {},
      );
    },
    enter() {
      inFlight++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight--;
        if (inFlight === 0) wake();
      };
    },
    begin() {
      draining = true;
    },
    idle(deadline) {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (idle: boolean) => {
          clearTimeout(timer);
          waiters.delete(onIdle);
          resolve(idle);
        };
        const onIdle = () => done(true);
        const timer = setTimeout(() => done(inFlight === 0), Math.max(0, deadline - now()));
        waiters.add(onIdle);
      });
    },
  };
}
