// Runs Ferry's TypeScript entry point (src/main.ts) in a child Node with tsx and the workspace's
// `ferry-source` condition, so neither Ferry nor its workspace packages need a build step.
// Conditions cannot be added to a running process, hence the child. Signals are forwarded; a
// Ctrl-C reaches the child twice (from the terminal's process group and from here), which the
// child treats as one (see cli/signals.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// Resolved from here, not from the caller's directory, so `ferry` works from anywhere.
const tsx = import.meta.resolve('tsx');

/** Runs `ferry <args>`; resolves to its exit code. */
export function runFerry(args) {
  const child = spawn(process.execPath, ['--import', tsx, '--conditions=ferry-source', main, ...args], {
    stdio: 'inherit',
  });
  const forward = (signal) => () => {
    if (child.exitCode === null) child.kill(signal);
  };
  const handlers = { SIGINT: forward('SIGINT'), SIGTERM: forward('SIGTERM'), SIGHUP: forward('SIGHUP') };
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
      resolve(code ?? (signal === 'SIGINT' ? 130 : 1));
    });
  });
}
