// The Prometheus metrics of one app (GET /metrics): a registry of its own, not prom-client's global
// one, so two apps in one process (tests, an embedder) never share or collide on a counter. Tool
// calls are counted by the metered host (ops/metered-host.ts) from each call's own events; the
// pool's connections and start queue are read when scraped; upload and download bytes where the
// routes store and serve them. Labels hold server and tool names only, never a user: a user label
// would grow with every account and tie numbers to people.
import type { PoolStats } from '@ferry/host';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** How a call ended: its status, with a tool's own error and the watchdog's timeout told apart. */
export type CallOutcome = 'finished' | 'tool_error' | 'failed' | 'timed_out' | 'cancelled';

/**
 * Distinct (server, tool) label pairs kept; later new pairs are counted under the tool
 * `(other)`. A tool name comes from the request: without a bound, calls to made-up tool names
 * would add a time series each, without end.
 */
export const MAX_TOOL_LABELS = 500;
export const OTHER_TOOL = '(other)';

/** Seconds; from a quick local tool to the 10-minute hard cap. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export interface AppMetrics {
  /** This app's own metrics (without the process metrics). */
  readonly registry: Registry;
  /** The exposition: this app's metrics and the process metrics, in Prometheus text format. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** The label pair a call of `tool` on `server` is counted under (bounded, see MAX_TOOL_LABELS). */
  labelsOf(server: string, tool: string): { server: string; tool: string };
  callStarted(): void;
  callEnded(labels: { server: string; tool: string }, outcome: CallOutcome, seconds: number): void;
  sandboxRefused(server: string): void;
  uploaded(bytes: number): void;
  downloaded(bytes: number): void;
  /** Where the connection pool's counts are read at each scrape (the host's `pool.stats`). */
  watchPool(stats: () => PoolStats | undefined): void;
}

export interface AppMetricsOptions {
  /** prom-client's process metrics (CPU, memory, event loop lag, GC, handles). @default true */
  processMetrics?: boolean;
}

let processRegistry: Registry | undefined;

/**
 * prom-client's process metrics, collected once per process and shown by every app: they describe
 * the process, not an app, and each collection starts an event-loop monitor and a GC observer
 * that nothing can stop again (one per app would pile up in a test run).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createAppMetrics(options: AppMetricsOptions = {}): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  const withProcess = options.processMetrics !== false;

  const calls = new Counter({
    name: 'ferry_tool_calls_total',
    help: 'Tool calls ended, by server, tool and outcome (finished, tool_error, failed, timed_out, cancelled)',
    labelNames: ['server', 'tool', 'outcome'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'ferry_tool_call_duration_seconds',
    help: 'Duration of tool calls, start to answer, by server and tool',
    labelNames: ['server', 'tool'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const timeouts = new Counter({
    name: 'ferry_tool_call_timeouts_total',
    help: 'Tool calls the watchdog ended with E_TIMEOUT (no response or progress in time, or the hard cap)',
    labelNames: ['server'] as const,
    registers,
  });
  const running = new Gauge({
    name: 'ferry_calls_running',
    help: 'Tool calls in progress (API and chat)',
    registers,
  });
  const refusals = new Counter({
    name: 'ferry_sandbox_refusals_total',
    help: 'Local server starts refused because the sandbox is required but unavailable (E_SANDBOX_UNAVAILABLE)',
    labelNames: ['server'] as const,
    registers,
  });
  const uploads = new Counter({
    name: 'ferry_upload_bytes_total',
    help: 'Bytes of uploaded files stored (POST /api/files)',
    registers,
  });
  const downloads = new Counter({
    name: 'ferry_download_bytes_total',
    help: 'Bytes of file content served in full responses (GET /api/files/{id}/content)',
    registers,
  });

  let poolStats: () => PoolStats | undefined = () => undefined;
  new Gauge({
    name: 'ferry_active_servers',
    help: 'MCP server connections alive (starting, open or closing): local = processes, remote = HTTP sessions',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const stats = poolStats();
      this.set({ kind: 'local' }, stats?.connections.local ?? 0);
      this.set({ kind: 'remote' }, stats?.connections.remote ?? 0);
    },
  });
  new Gauge({
    name: 'ferry_server_starts_waiting',
    help: 'Local server starts waiting for a start slot (calls.maxConcurrentStarts)',
    registers,
    collect() {
      this.set(poolStats()?.starts.waiting ?? 0);
    },
  });
  new Gauge({
    name: 'ferry_server_starts_running',
    help: 'Local server starts holding a start slot now',
    registers,
    collect() {
      this.set(poolStats()?.starts.running ?? 0);
    },
  });

  const toolPairs = new Set<string>();
  // Zero series for what an operator alerts on, so a rate() has a baseline before the first event.
  uploads.inc(0);
  downloads.inc(0);
  running.set(0);

  return {
    registry,
    // Merged at each scrape: a merge copies the metrics registered so far.
    scrape: () => (withProcess ? Registry.merge([registry, processMetrics()]) : registry).metrics(),
    contentType: registry.contentType,
    labelsOf(server, tool) {
      const pair = `${server}\n${tool}`;
      if (toolPairs.has(pair)) return { server, tool };
      if (toolPairs.size >= MAX_TOOL_LABELS) return { server, tool: OTHER_TOOL };
      toolPairs.add(pair);
      return { server, tool };
    },
    callStarted: () => running.inc(),
    callEnded(labels, outcome, seconds) {
      running.dec();
      calls.inc({ ...labels, outcome });
      durations.observe(labels, seconds);
      if (outcome === 'timed_out') timeouts.inc({ server: labels.server });
    },
    sandboxRefused: (server) => refusals.inc({ server }),
    uploaded: (bytes) => uploads.inc(bytes),
    downloaded: (bytes) => downloads.inc(bytes),
    watchPool(stats) {
      poolStats = stats;
    },
  };
}
