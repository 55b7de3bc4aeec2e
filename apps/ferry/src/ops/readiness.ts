// What GET /readyz asks before it says "send me traffic": a list of named checks, each a cheap
// real operation on something Ferry cannot serve without (the catalog's database, the blob store,
// the sandbox a `required` mode insists on). The list is the extension point: a part that Ferry
// comes to depend on registers its own check (the Redis event fan-out of scale mode will add
// `redis`), and /readyz runs them all at once, each bounded by a timeout so that a hung database
// makes the probe fail in time instead of hanging it.
import type { OpenedStorage } from '@ferry/storage';
import type { FerryStatus } from '../status.js';
import type { Drain } from './drain.js';

/** How long one check may take before it counts as failed. */
const READINESS_TIMEOUT_MS = 2_000;

export interface ReadinessCheck {
  /** The key in /readyz's `checks`, e.g. 'catalog', 'blobs', 'sandbox', 'redis'. */
  readonly name: string;
  /** Resolves when the part works; rejects with why not. `signal` aborts at the timeout. */
  check(signal: AbortSignal): Promise<void>;
}

export type CheckResult = { ok: true; ms: number } | { ok: false; ms: number; error: string };

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

export interface Readiness {
  /** Adds a check; a second check of the same name replaces the first. */
  register(check: ReadinessCheck): void;
  /** Runs every check concurrently, each bounded by the timeout. */
  run(): Promise<ReadinessReport>;
}

export function createReadiness(
  checks: readonly ReadinessCheck[] = [],
  options: { timeoutMs?: number } = {},
): Readiness {
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const registered = new Map<string, ReadinessCheck>();
  const readiness: Readiness = {
    register: (check) => {
      registered.set(check.name, check);
    },
    run: async () => {
      const entries = await Promise.all(
        [...registered.values()].map(async (check) => [check.name, await runOne(check, timeoutMs)] as const),
      );
      return { ready: entries.every(([, result]) => result.ok), checks: Object.fromEntries(entries) };
    },
  };
  for (const check of checks) readiness.register(check);
  return readiness;
}

async function runOne(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    // The race, not the signal, bounds the wait: a check that ignores its signal still ends in time.
    await Promise.race([Promise.resolve().then(() => check.check(controller.signal)), timedOut]);
    return { ok: true, ms: elapsed() };
  } catch (error) {
    return { ok: false, ms: elapsed(), error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The catalog's database (a trivial query) and the blob store (its driver's `ping`). */
export function storageChecks(storage: Pick<OpenedStorage, 'ping'>): ReadinessCheck[] {
  return [
    { name: 'catalog', check: () => storage.ping.catalog() },
    { name: 'blobs', check: (signal) => storage.ping.blobs({ signal }) },
  ];
}

/**
 * `sandbox: required` without a usable sandbox refuses every local server: such an instance takes
 * no traffic. The startup probe's verdict stands until a restart, so this reads it, not bwrap.
 */
/** Fails once the instance drains before a stop: the load balancer sends its traffic elsewhere. */
export function drainCheck(drain: Pick<Drain, 'draining'>): ReadinessCheck {
  return {
    name: 'shutdown',
    check: async () => {
      if (drain.draining) throw new Error('shutting down: finishing the calls and uploads in progress');
    },
  };
}

export function sandboxCheck(status: () => FerryStatus): ReadinessCheck {
  return {
    name: 'sandbox',
    check: async () => {
      const { sandbox } = status();
      if (sandbox.effectiveMode === 'refused') {
        throw new Error(`sandbox mode ${sandbox.mode} but unavailable: ${sandbox.reason ?? sandbox.summary}`);
      }
    },
  };
}
