#!/usr/bin/env node
// npm start: starts Ferry (`ferry start`, apps/ferry) with the embedded default: local disk +
// SQLite under ./.ferry, the example servers of ./ferry.config.json, http://127.0.0.1:8787.
// The web app is built first when apps/web/dist is missing or older than its sources, so
// `npm ci && npm start` serves it. Arguments after `--` go to `ferry start` (npm start -- --port 9000).
import { runFerry } from '../apps/ferry/bin/run-ferry.mjs';
import { buildWeb } from '../apps/web/scripts/build-web.mjs';

if (!buildWeb({ ifStale: true, quiet: true })) {
  console.error('[start] starting without the web app: the API still works (see /api/openapi.json)');
}
process.exitCode = await runFerry(['start', ...process.argv.slice(2)]);
