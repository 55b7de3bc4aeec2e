#!/usr/bin/env node
// npm start: starts Ferry (`ferry start`, apps/ferry) with the embedded default: local disk +
// SQLite under ./.ferry, the example servers of ./ferry.config.json, http://127.0.0.1:8787.
// The web app and the example servers are built first when their build is missing or older than
// their sources, so `npm ci && npm start` serves the app and runs the servers. Arguments after `--` go to `ferry start` (npm start -- --port 9000).
import { runFerry } from '../apps/ferry/bin/run-ferry.mjs';
import { buildWeb } from '../apps/web/scripts/build-web.mjs';
import { buildServers } from '../examples/servers/scripts/build-servers.mjs';

// The example servers of ferry.config.json run from their build (examples/servers/dist).
if (!(await buildServers({ ifStale: true, quiet: true }))) {
  console.error("[start] the example servers did not build: ferry.config.json's servers cannot start");
}
if (!buildWeb({ ifStale: true, quiet: true })) {
  console.error('[start] starting without the web app: the API still works (see /api/openapi.json)');
}
process.exitCode = await runFerry(['start', ...process.argv.slice(2)]);
