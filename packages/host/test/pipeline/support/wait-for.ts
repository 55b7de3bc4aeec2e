// Waits for a condition that real MCP traffic (async, in memory) makes true. It turns the event
// loop rather than sleeping, so it is fast; it gives up after `timeoutMs` to fail loudly. A bound
// in turns instead (5,000 once) ran out before the file-system work in front of a call did on a
// busy machine: turns pass in microseconds, disk I/O does not.
import { setImmediate } from 'node:timers/promises';

export async function waitFor(
  condition: () => boolean,
  what = 'condition',
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (condition()) return;
    await setImmediate();
  }
  if (condition()) return;
  throw new Error(`waitFor: ${what} did not happen within ${timeoutMs} ms`);
}
