// Entry point of the `ferry` command (bin/ferry.mjs runs it through tsx).
import { runCli } from './cli/program.js';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
process.exitCode = code;
// The server is closed and the CLI's requests are done: leftover keep-alive sockets or timers
// must not hold the process open.
setTimeout(() => process.exit(code), 100).unref();
