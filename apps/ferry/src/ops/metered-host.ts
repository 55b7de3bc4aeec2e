// The host as the app and the model loop use it, with every tool call counted from its own event
// stream: the terminal event says how it ended (a `failed` E_TIMEOUT is a timeout, a `failed`
// E_SANDBOX_UNAVAILABLE a sandbox refusal), the wrapper's clock how long it took. Wrapping the one
// host both use (server.ts hands the same metered host to the agent and the app) counts calls
// from the API and from chat alike, without a counter inside the pipeline.
import { type CallEvent, FerryError } from '@ferry/contract';
import type { Host } from '@ferry/host';
import type { AppMetrics, CallOutcome } from './metrics.js';

type MeterableHost = Pick<Host, 'callTool' | 'listTools'> & Partial<Pick<Host, 'startSessionServers'>>;

/** Hosts already metered, per metrics: metering twice would count every call twice. */
const meteredBy = new WeakMap<AppMetrics, WeakSet<object>>();

/** `host` with its calls counted in `metrics`; the same host when it is already. */
export function meteredHost<H extends MeterableHost>(host: H, metrics: AppMetrics): H {
  let hosts = meteredBy.get(metrics);
  if (!hosts) {
    hosts = new WeakSet();
    meteredBy.set(metrics, hosts);
  }
  if (hosts.has(host)) return host;
  const noteRefusal = (server: string, error: unknown) => {
    if (error instanceof FerryError && error.code === 'E_SANDBOX_UNAVAILABLE') metrics.sandboxRefused(server);
  };
  const metered: H = {
    ...host,
    callTool: async (request, emit) => {
      const labels = metrics.labelsOf(request.server, request.tool);
      const started = performance.now();
      // callTool rejects only on programmer errors: such a call counts as failed.
      let outcome: CallOutcome = 'failed';
      let ending: CallEvent | undefined;
      metrics.callStarted();
      try {
        const response = await host.callTool(request, (event) => {
          if (event.type === 'finished' || event.type === 'failed' || event.type === 'cancelled') {
            ending = event;
          }
          if (event.type === 'failed' && event.code === 'E_SANDBOX_UNAVAILABLE') {
            metrics.sandboxRefused(request.server);
          }
          emit?.(event);
        });
        outcome = outcomeOf(response.status, ending);
        return response;
      } finally {
        metrics.callEnded(labels, outcome, (performance.now() - started) / 1000);
      }
    },
    listTools: (server, username) =>
      host.listTools(server, username).catch((error: unknown) => {
        noteRefusal(server, error);
        throw error;
      }),
  };
  const { startSessionServers } = host;
  if (startSessionServers) {
    metered.startSessionServers = async (username) => {
      const starts = await startSessionServers.call(host, username);
      for (const start of starts) {
        if (!start.ok) noteRefusal(start.server, start.error);
      }
      return starts;
    };
  }
  hosts.add(metered);
  return metered;
}

/** The status is the truth; the terminal event tells a tool's error and a timeout apart. */
function outcomeOf(status: 'finished' | 'failed' | 'cancelled', ending: CallEvent | undefined): CallOutcome {
  if (status === 'finished') return ending?.type === 'finished' && ending.isError ? 'tool_error' : 'finished';
  if (status === 'failed')
    return ending?.type === 'failed' && ending.code === 'E_TIMEOUT' ? 'timed_out' : 'failed';
  return 'cancelled';
}
