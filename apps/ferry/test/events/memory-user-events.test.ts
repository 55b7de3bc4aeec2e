import { describe, expect, it } from 'vitest';
import { createUserEvents } from '../../src/events/user-events.js';
import { changed, describeUserEvents, range, recorder } from './user-events-suite.js';

describeUserEvents('memory', async ({ now }) => {
  const events = createUserEvents(now ? { now } : {});
  return { events, peer: events, cleanup: async () => {} };
});

describe('memory user events', () => {
  it('keeps exactly the last `backlog` events per owner', async () => {
    const events = createUserEvents({ backlog: 3 });
    for (const n of range(1, 5)) await events.publish('alice', changed(n));
    const seen = recorder();
    await events.follow('alice', 0, seen.listener);
    expect(seen.ids()).toEqual([3, 4, 5]);
  });

  it('hands an event to its followers before publish returns, as the embedded app always did', () => {
    const events = createUserEvents();
    const seen = recorder();
    void events.follow('alice', undefined, seen.listener);
    void events.publish('alice', changed(1));
    expect(seen.ids()).toEqual([1]);
  });
});
