// The contract every UserEvents keeps (src/events/user-events.ts), as one suite run against each
// implementation, like test/calls/call-store-suite.ts: memory-user-events.test.ts runs it on the
// embedded one, redis-user-events.test.ts on two instances over one Redis prefix.
import type { UserEvent, UserEventBody } from '@ferry/contract';
import { afterEach, describe, expect, it } from 'vitest';
import type { UserEvents } from '../../src/events/user-events.js';

export interface UserEventsFixture {
  /** Where the test publishes. */
  events: UserEvents;
  /** Another instance over the same state (the same object for the embedded one). */
  peer: UserEvents;
  /** Removes everything the fixture created (keys, clients). */
  cleanup(): Promise<void>;
}

/** Called in each test: each test gets empty state. */
export type MakeUserEvents = (options: { now?: () => number }) => Promise<UserEventsFixture>;

export const changed = (n: number): UserEventBody => ({
  type: 'files_changed',
  reason: 'uploaded',
  fileIds: [`f${n}`],
});

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Records what a follower gets; `reached(id)` resolves once that id has arrived. */
export function recorder() {
  const events: UserEvent[] = [];
  const waiting = new Map<number, () => void>();
  const listener = (event: UserEvent) => {
    events.push(event);
    waiting.get(event.id)?.();
  };
  const reached = (id: number) =>
    events.some((event) => event.id === id)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.set(id, resolve));
  return { listener, events, ids: () => events.map((event) => event.id), reached };
}

export function describeUserEvents(name: string, make: MakeUserEvents): void {
  describe(`user events contract: ${name}`, () => {
    let fixture: UserEventsFixture | undefined;
    const open = async (options: { now?: () => number } = {}) => {
      fixture = await make(options);
      return fixture;
    };
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });

    it('gives each owner ids from 1, one more per event, with the time of publishing', async () => {
      const { events, peer } = await open({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
      const alice = recorder();
      const bob = recorder();
      await peer.follow('alice', 0, alice.listener);
      await peer.follow('bob', 0, bob.listener);
      await events.publish('alice', changed(1));
      await events.publish('bob', { type: 'files_changed', reason: 'deleted', fileIds: [] });
      await events.publish('alice', changed(2));
      await alice.reached(2);
      await bob.reached(1);
      expect(alice.events).toEqual([
        { ...changed(1), id: 1, at: '2026-01-02T03:04:05.000Z' },
        { ...changed(2), id: 2, at: '2026-01-02T03:04:05.000Z' },
      ]);
      expect(bob.events).toEqual([
        { type: 'files_changed', reason: 'deleted', fileIds: [], id: 1, at: '2026-01-02T03:04:05.000Z' },
      ]);
    });

    it('a follow without an id starts live: what was published before is not sent', async () => {
      const { events, peer } = await open();
      await events.publish('alice', changed(1));
      await events.publish('alice', changed(2));
      const seen = recorder();
      await peer.follow('alice', undefined, seen.listener);
      await events.publish('alice', changed(3));
      await seen.reached(3);
      expect(seen.ids()).toEqual([3]);
    });

    it('a follow from an id replays the later kept ones, then the live ones, each once', async () => {
      const { events, peer } = await open();
      for (const n of range(1, 5)) await events.publish('alice', changed(n));
      const seen = recorder();
      await peer.follow('alice', 2, seen.listener);
      // Replayed before follow resolves.
      expect(seen.ids()).toEqual([3, 4, 5]);
      for (const n of range(6, 8)) await events.publish('alice', changed(n));
      await seen.reached(8);
      expect(seen.ids()).toEqual(range(3, 8));
      expect(seen.events[0]).toMatchObject({ ...changed(3), id: 3 });
      // From the last id: nothing again.
      const after = recorder();
      await peer.follow('alice', 8, after.listener);
      await events.publish('alice', changed(9));
      await after.reached(9);
      expect(after.ids()).toEqual([9]);
    });

    it('publishes racing from two instances get distinct, growing ids, followed in order', async () => {
      const { events, peer } = await open();
      const seen = recorder();
      await events.follow('alice', 0, seen.listener);
      await Promise.all(range(1, 40).map((n) => (n % 2 ? events : peer).publish('alice', changed(n))));
      await seen.reached(40);
      expect(seen.ids()).toEqual(range(1, 40));
      const files = seen.events.map((event) => (event.type === 'files_changed' ? event.fileIds[0] : ''));
      expect(new Set(files).size).toBe(40);
      // Each instance's own publishes keep the order they were made in.
      const numbers = files.map((file) => Number(file?.slice(1)));
      for (const parity of [0, 1]) {
        const mine = numbers.filter((n) => n % 2 === parity);
        expect(mine).toEqual([...mine].sort((x, y) => x - y));
      }
    });

    it('a follow that starts while another instance publishes gets each id once, none missed', async () => {
      const { events, peer } = await open();
      // Follows start one after another during a run of publishes (the subscriber connection
      // already open): the events published while one sets up are both in what it replays and
      // on the live channel.
      await events.follow('warm-up', undefined, () => {});
      const publishing = (async () => {
        for (const n of range(1, 150)) await peer.publish('alice', changed(n));
      })();
      const followers: ReturnType<typeof recorder>[] = [];
      for (const _ of range(1, 8)) {
        const seen = recorder();
        await events.follow('alice', 0, seen.listener);
        followers.push(seen);
      }
      await publishing;
      for (const seen of followers) {
        await seen.reached(150);
        expect(seen.ids()).toEqual(range(1, 150));
      }
    });

    it('keeps a backlog of about 200 per owner: a replay from 0 gets the newest ones', async () => {
      const { events, peer } = await open();
      for (const n of range(1, 450)) await events.publish('alice', changed(n));
      const seen = recorder();
      await peer.follow('alice', 0, seen.listener);
      const ids = seen.ids();
      expect(ids.at(-1)).toBe(450);
      expect(ids).toEqual(range(ids[0] ?? 0, 450));
      expect(ids.length).toBeGreaterThanOrEqual(200);
      expect(ids.length).toBeLessThanOrEqual(300);
    });

    it('stops when told, and a listener that throws does not stop the others', async () => {
      const { events, peer } = await open();
      const stopped = recorder();
      const stop = await peer.follow('alice', undefined, stopped.listener);
      await peer.follow('alice', undefined, () => {
        throw new Error('a broken stream');
      });
      const kept = recorder();
      await peer.follow('alice', undefined, kept.listener);
      await events.publish('alice', changed(1));
      await kept.reached(1);
      await stopped.reached(1);
      stop();
      stop();
      await events.publish('alice', changed(2));
      await kept.reached(2);
      expect(stopped.ids()).toEqual([1]);
      expect(kept.ids()).toEqual([1, 2]);
    });
  });
}
