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

/**
 * V8 options of Ferry's process. --no-concurrent-array-buffer-sweeping: dead ArrayBuffers are
 * swept on the main thread at each young-generation collection rather than by a background task.
 * Streaming a file allocates an ArrayBuffer per 64 KiB socket read, all short-lived; with V8's
 * default, a Ferry process could fall, at its first large upload, into a full collection every
 * ~70 ms ("external memory pressure") for as long as bytes kept streaming, doubling the CPU per
 * GiB. bench/upload.ts (`full_gcs`, 1 GiB up and down): without it 5 processes of 20 did, with
 * 56-77 full collections; with it 6 of 60, with 15-35, and the same speed otherwise.
 */
export const V8_OPTIONS = ['--no-concurrent-array-buffer-sweeping'];

/** Runs `ferry <args>`; resolves to its exit code. */
export function runFerry(args) {
  const nodeArgs = [...V8_OPTIONS, '--import', tsx, '--conditions=ferry-source', main];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
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
