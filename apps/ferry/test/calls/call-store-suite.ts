// The contract every CallStore keeps (src/calls/call-store.ts), as one suite run against each
// store, like packages/storage/test/blob/driver-suite.ts: memory-call-store.test.ts runs it on the
// embedded store; a shared store's test runs the same cases and adds what only it has.
import type { CallEvent } from '@ferry/contract';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallListener, CallStore, CallStoreLimits, NewCall } from '../../src/calls/call-store.js';

export interface CallStoreFixture {
  store: CallStore;
  /** Removes everything the fixture created (keys, clients). */
  cleanup(): Promise<void>;
}

/** Called in each test with the caps it needs: each test gets an empty store. */
export type MakeCallStore = (limits: CallStoreLimits) => Promise<CallStoreFixture>;

export interface CallStoreSuiteExtras {
  /** More tests inside the same `describe`. */
  additionalTests?: (open: (limits?: Partial<CallStoreLimits>) => Promise<CallStore>) => void;
}

const INSTANCE = 'suite-a';
// Real times (not 1970): a store's time retention must not see these calls as long expired.
const T0 = Date.now();
const at = (ms: number) => new Date(T0 + ms);
const DEFAULT_LIMITS: CallStoreLimits = {
  maxEventsPerCall: 1000,
  maxKeptCalls: 1000,
  keepFinishedMinutes: 60,
};

export const newCall = (owner = 'o1', startedAt = at(1_000)): NewCall => ({
  owner,
  username: `${owner}-name`,
  server: 's',
  tool: 't',
  startedAt,
  instance: INSTANCE,
});

const callEvent = (callId: string, seq: number, body: Record<string, unknown> = {}): CallEvent =>
  ({
    callId,
    seq,
    at: new Date(seq * 1000).toISOString(),
    type: 'progress',
    progress: seq,
    ...body,
  }) as CallEvent;

/** A listener that records what it gets; `ended` resolves on end(). */
function recorder(onEvent?: (event: CallEvent) => void) {
  const seqs: number[] = [];
  let ends = 0;
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const listener: CallListener = {
    event(event) {
      seqs.push(event.seq);
      onEvent?.(event);
    },
    end() {
      ends += 1;
      markEnded();
    },
  };
  return { listener, seqs, ended, ends: () => ends };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export function describeCallStore(
  name: string,
  makeStore: MakeCallStore,
  extras: CallStoreSuiteExtras = {},
): void {
  describe(`call store contract: ${name}`, () => {
    const fixtures: CallStoreFixture[] = [];
    const open = async (limits: Partial<CallStoreLimits> = {}) => {
      const fixture = await makeStore({ ...DEFAULT_LIMITS, ...limits });
      fixtures.push(fixture);
      return fixture.store;
    };
    afterEach(async () => {
      for (const fixture of fixtures.splice(0)) await fixture.cleanup();
    });

    it('enforces the running limit atomically across concurrent creates, per owner', async () => {
      const store = await open();
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, () => store.create(newCall('o1'), 2)),
      );
      const created = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(created).toHaveLength(2);
      expect(refused).toHaveLength(4);
      for (const r of refused) {
        expect(r.reason).toMatchObject({
          code: 'E_TOO_MANY_CALLS',
          status: 429,
          message: 'At most 2 calls may run at once',
          details: { running: 2 },
        });
      }
      const [first] = created;
      if (first?.status !== 'fulfilled') throw new Error('unreachable');
      expect(first.value).toMatchObject({ owner: 'o1', status: 'running', lastSeq: 0, instance: INSTANCE });
      // Another owner has their own slots.
      expect((await store.create(newCall('o2'), 2)).status).toBe('running');
      // A settled call frees its slot.
      expect(
        await store.settle(first.value.callId, INSTANCE, toolCallResponse(first.value.callId), at(2_000)),
      ).toBe(true);
      expect((await store.create(newCall('o1'), 2)).status).toBe('running');
      await expect(store.create(newCall('o1'), 2)).rejects.toMatchObject({ code: 'E_TOO_MANY_CALLS' });
    });

    it('caps the log at maxEventsPerCall, dropping progress events first, then the oldest', async () => {
      const store = await open({ maxEventsPerCall: 5 });
      const { callId } = await store.create(newCall(), 8);
      expect(
        await store.append(
          callId,
          INSTANCE,
          callEvent(callId, 1, { type: 'started', server: 's', tool: 't' }),
        ),
      ).toBe(true);
      for (const seq of range(2, 20)) await store.append(callId, INSTANCE, callEvent(callId, seq));
      await store.append(
        callId,
        INSTANCE,
        callEvent(callId, 21, { type: 'finished', isError: false, files: 0 }),
      );
      expect((await store.eventsAfter(callId, 0)).map((e) => e.seq)).toEqual([1, 18, 19, 20, 21]);
      expect((await store.get('o1', callId))?.lastSeq).toBe(21);
      // No progress left: the oldest goes.
      const other = (await store.create(newCall(), 8)).callId;
      for (const seq of range(1, 7)) {
        await store.append(
          other,
          INSTANCE,
          callEvent(other, seq, { type: 'notice', level: 'info', message: `n${seq}` }),
        );
      }
      expect((await store.eventsAfter(other, 0)).map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
      // The events come back as appended.
      const [kept] = await store.eventsAfter(other, 6);
      expect(kept).toEqual(callEvent(other, 7, { type: 'notice', level: 'info', message: 'n7' }));
    });

    it('shows a call to its owner only, in get and list', async () => {
      const store = await open();
      const a = await store.create(newCall('o1', at(1_000)), 8);
      const b = await store.create(newCall('o1', at(2_000)), 8);
      const c = await store.create(newCall('o2'), 8);
      expect(await store.get('o1', a.callId)).toEqual(a);
      expect(await store.get('o2', a.callId)).toBeUndefined();
      expect(await store.get('o1', 'no-such-call')).toBeUndefined();
      expect((await store.list('o1')).map((s) => s.callId).sort()).toEqual([a.callId, b.callId].sort());
      expect((await store.list('o2')).map((s) => s.callId)).toEqual([c.callId]);
      expect(await store.list('o3')).toEqual([]);
      // Snapshots are copies and carry every field.
      const response = toolCallResponse(a.callId, 'cancelled');
      await store.settle(a.callId, INSTANCE, response, at(5_000));
      expect(a.status).toBe('running');
      expect(await store.get('o1', a.callId)).toEqual({
        ...a,
        status: 'cancelled',
        finishedAt: at(5_000),
        response,
      });
      expect(a.username).toBe('o1-name');
      expect(a.startedAt).toEqual(at(1_000));
    });

    it('eventsAfter gives the kept events after a seq, oldest first', async () => {
      const store = await open();
      const { callId } = await store.create(newCall(), 8);
      for (const seq of range(1, 6)) await store.append(callId, INSTANCE, callEvent(callId, seq));
      expect((await store.eventsAfter(callId, 0)).map((e) => e.seq)).toEqual(range(1, 6));
      expect((await store.eventsAfter(callId, 4)).map((e) => e.seq)).toEqual([5, 6]);
      expect(await store.eventsAfter(callId, 6)).toEqual([]);
      expect(await store.eventsAfter('no-such-call', 0)).toEqual([]);
    });

    for (const after of [0, 3]) {
      it(`follow from ${after}: replay, events appended during the replay, live, end; no duplicate, no gap`, async () => {
        const store = await open();
        const { callId } = await store.create(newCall(), 8);
        for (const seq of range(1, 5)) await store.append(callId, INSTANCE, callEvent(callId, seq));
        // While the replay is being delivered, the runner goes on appending. From 3, the third
        // append is made on a live event: in memory that arrives before follow returns, through a
        // shared store later, so the test waits for it before appending 9.
        let next = 6;
        const appending: Promise<boolean>[] = [];
        let markStarted: () => void = () => {};
        const allStarted = new Promise<void>((resolve) => {
          markStarted = resolve;
        });
        const seen = recorder(() => {
          if (next <= 8) {
            appending.push(store.append(callId, INSTANCE, callEvent(callId, next)));
            next += 1;
            if (next > 8) markStarted();
          }
        });
        const stop = await store.follow(callId, after, seen.listener);
        await allStarted;
        expect(await Promise.all(appending)).toEqual([true, true, true]);
        for (const seq of range(9, 10)) await store.append(callId, INSTANCE, callEvent(callId, seq));
        await store.settle(callId, INSTANCE, toolCallResponse(callId), at(9_000));
        await seen.ended;
        expect(seen.seqs).toEqual(range(after + 1, 10));
        expect(seen.ends()).toBe(1);
        stop();
      });
    }

    it('follow of a running call ends when it settles; stop() stops the events', async () => {
      const store = await open();
      const { callId } = await store.create(newCall(), 8);
      const stopped = recorder();
      const stop = await store.follow(callId, 0, stopped.listener);
      const kept = recorder();
      await store.follow(callId, 0, kept.listener);
      await store.append(callId, INSTANCE, callEvent(callId, 1));
      stop();
      await store.append(callId, INSTANCE, callEvent(callId, 2));
      await store.settle(callId, INSTANCE, toolCallResponse(callId), at(3_000));
      await kept.ended;
      expect(kept.seqs).toEqual([1, 2]);
      expect(stopped.seqs).toEqual([1]);
      expect(stopped.ends()).toBe(0);
    });

    it('follow of a settled call replays what is left and ends; of an unknown call ends at once', async () => {
      const store = await open();
      const { callId } = await store.create(newCall(), 8);
      for (const seq of range(1, 4)) await store.append(callId, INSTANCE, callEvent(callId, seq));
      await store.settle(callId, INSTANCE, toolCallResponse(callId), at(3_000));
      const rest = recorder();
      await store.follow(callId, 2, rest.listener);
      await rest.ended;
      expect(rest.seqs).toEqual([3, 4]);
      expect(rest.ends()).toBe(1);
      const nothing = recorder();
      await store.follow(callId, 4, nothing.listener);
      await nothing.ended;
      expect(nothing.seqs).toEqual([]);
      const unknown = recorder();
      await store.follow('no-such-call', 0, unknown.listener);
      await unknown.ended;
      expect(unknown.seqs).toEqual([]);
      expect(unknown.ends()).toBe(1);
    });

    it('settles once: a second settle and later appends are refused, as are other instances', async () => {
      const store = await open();
      const { callId } = await store.create(newCall(), 8);
      expect(await store.append(callId, 'suite-b', callEvent(callId, 1))).toBe(false);
      expect(await store.settle(callId, 'suite-b', toolCallResponse(callId), at(2_000))).toBe(false);
      expect(await store.append(callId, INSTANCE, callEvent(callId, 1))).toBe(true);
      expect(await store.settle(callId, INSTANCE, toolCallResponse(callId, 'failed'), at(2_000))).toBe(true);
      expect(await store.settle(callId, INSTANCE, toolCallResponse(callId), at(3_000))).toBe(false);
      expect(await store.append(callId, INSTANCE, callEvent(callId, 2))).toBe(false);
      expect(await store.get('o1', callId)).toMatchObject({
        status: 'failed',
        finishedAt: at(2_000),
        lastSeq: 1,
        response: { status: 'failed' },
      });
      expect((await store.eventsAfter(callId, 0)).map((e) => e.seq)).toEqual([1]);
      expect(await store.settle('no-such-call', INSTANCE, toolCallResponse('x'), at(0))).toBe(false);
      expect(await store.append('no-such-call', INSTANCE, callEvent('x', 1))).toBe(false);
    });

    it('keeps at most maxKeptCalls settled calls, the oldest finished go first, running ones stay', async () => {
      const store = await open({ maxKeptCalls: 2 });
      const running = await store.create(newCall(), 8);
      const settled: string[] = [];
      // Settled out of start order: retention goes by finishedAt.
      for (const finishedAt of [3_000, 1_000, 2_000]) {
        const { callId } = await store.create(newCall(), 8);
        await store.settle(callId, INSTANCE, toolCallResponse(callId), at(finishedAt));
        settled.push(callId);
      }
      await store.sweep();
      const kept = (await store.list('o1')).map((s) => s.callId).sort();
      expect(kept).toEqual([running.callId, settled[0], settled[2]].sort());
      expect(await store.eventsAfter(settled[1] as string, 0)).toEqual([]);
    });

    extras.additionalTests?.(open);
  });
}
