// Vitest's global setup: the tests start the example servers as the configs do, from their build
// (examples/servers/dist), so it is brought up to date once before any test runs (a no-op when
// nothing changed since the last build).
import { buildServers } from '../examples/servers/scripts/build-servers.mjs';

export async function setup() {
  if (!(await buildServers({ ifStale: true, quiet: true }))) {
    throw new Error('the example servers did not build (examples/servers/scripts/build-servers.mjs)');
  }
}
