#!/usr/bin/env node
// npm start: starts Ferry (`ferry start`, apps/ferry) with the embedded default: local disk +
// SQLite under ./.ferry, the example servers of ./ferry.config.json, http://127.0.0.1:8787.
// Arguments after `--` go to `ferry start` (npm start -- --port 9000).
import { runFerry } from '../apps/ferry/bin/run-ferry.mjs';

process.exitCode = await runFerry(['start', ...process.argv.slice(2)]);
