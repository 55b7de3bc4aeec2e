// Waits for a condition that real MCP traffic (async, in memory) makes true. It turns the event
// loop rather than sleeping on time, so it is fast; it gives up after `turns` to fail loudly.
import { setImmediate } from 'node:timers/promises';

export async function waitFor(condition: () => boolean, what = 'condition', turns = 5_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await setImmediate();
  }
  throw new Error(`waitFor: ${what} did not happen`);
}
