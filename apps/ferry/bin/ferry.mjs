#!/usr/bin/env node
// The `ferry` command: see run-ferry.mjs for why it starts a child Node.
import { runFerry } from './run-ferry.mjs';

process.exitCode = await runFerry(process.argv.slice(2));
