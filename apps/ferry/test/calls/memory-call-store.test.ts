import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { describe, expect, it } from 'vitest';
import { createMemoryCallStore } from '../../src/calls/memory-call-store.js';
import { describeCallStore, newCall } from './call-store-suite.js';

describeCallStore('memory', async (limits) => ({
  store: createMemoryCallStore({ limits }),
  cleanup: async () => {},
}));

describe('memory call store', () => {
  it('forgets settled calls keepFinishedMinutes after they finished, by its clock', async () => {
    let clock = 0;
    const store = createMemoryCallStore({
      limits: { maxEventsPerCall: 10, maxKeptCalls: 10, keepFinishedMinutes: 1 },
      now: () => clock,
    });
    const running = await store.create(newCall('o1', new Date(0)), 8);
    const early = await store.create(newCall('o1', new Date(0)), 8);
    const late = await store.create(newCall('o1', new Date(0)), 8);
    await store.settle(early.callId, 'suite-a', toolCallResponse(early.callId), new Date(0));
    await store.settle(late.callId, 'suite-a', toolCallResponse(late.callId), new Date(30_000));
    clock = 60_000;
    await store.sweep();
    expect((await store.list('o1')).map((c) => c.callId).sort()).toEqual(
      [early.callId, late.callId, running.callId].sort(),
    );
    clock = 60_001;
    await store.sweep();
    expect((await store.list('o1')).map((c) => c.callId).sort()).toEqual(
      [late.callId, running.callId].sort(),
    );
    clock = 90_001;
    await store.sweep();
    expect((await store.list('o1')).map((c) => c.callId)).toEqual([running.callId]);
  });
});
