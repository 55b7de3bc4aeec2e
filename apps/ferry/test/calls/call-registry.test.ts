import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import type { ToolCallRequest } from '@ferry/host';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { describe, expect, it } from 'vitest';
import { type CallRegistry, createCallRegistry } from '../../src/calls/call-registry.js';
import { type AppConfigInput, defaultAppConfig } from '../../src/config/app-config.js';
import { ApiError } from '../../src/http/api-error.js';
import { createPathRedactor } from '../../src/http/redact-paths.js';

type Script = (request: ToolCallRequest, emit: (event: CallEvent) => void) => Promise<ToolCallResponse>;

function registry(script: Script, calls: AppConfigInput['calls'] = {}, now = () => 0): CallRegistry {
  return createCallRegistry({
    callTool: script,
    limits: defaultAppConfig({ calls }).calls,
    redact: createPathRedactor({ workspace: '/srv/ferry/ws' }),
    now,
  });
}

const response = (callId: string, status: ToolCallResponse['status'] = 'finished') =>
  toolCallResponse(callId, status);

const event = (callId: string, seq: number, body: Record<string, unknown>) =>
  ({ callId, seq, at: new Date(0).toISOString(), ...body }) as CallEvent;

const input = { owner: 'o1', username: 'alice', server: 's', tool: 't', arguments: {} };

describe('call registry', () => {
  it('keeps at most maxEventsPerCall events, dropping progress first, and redacts host paths', async () => {
    const calls = registry(
      async (request, emit) => {
        const id = request.callId as string;
        emit(event(id, 1, { type: 'started', server: 's', tool: 't' }));
        for (let i = 2; i <= 20; i++)
          emit(event(id, i, { type: 'progress', progress: i, message: `/srv/ferry/ws/alice/step${i}` }));
        emit(event(id, 21, { type: 'finished', isError: false, files: 0 }));
        return response(id);
      },
      { maxEventsPerCall: 5 },
    );
    const { callId } = await calls.start(input);
    await calls.settled(callId);
    const events = await calls.eventsAfter(callId, 0);
    expect(events.map((e) => e.seq)).toEqual([1, 18, 19, 20, 21]);
    expect(JSON.stringify(events)).not.toContain('/srv/ferry/ws');
    expect(JSON.stringify(events)).toContain('<workspace>/alice/step20');
    expect((await calls.eventsAfter(callId, 18)).map((e) => e.seq)).toEqual([19, 20, 21]);
    expect((await calls.get('o1', callId))?.status).toBe('finished');
  });

  it('a listener subscribed as start resolves gets every event, then the redacted outcome; follow the same', async () => {
    const calls = registry(async (request, emit) => {
      const id = request.callId as string;
      // Emitted at once, before callTool's first await: the deferred start must not lose them.
      emit(event(id, 1, { type: 'started', server: 's', tool: 't' }));
      emit(event(id, 2, { type: 'progress', progress: 1, message: '/srv/ferry/ws/alice/x' }));
      emit(event(id, 3, { type: 'finished', isError: false, files: 0 }));
      return toolCallResponse(id, 'finished', { forModel: { results: { path: '/srv/ferry/ws/alice/x' } } });
    });
    const record = await calls.start(input);
    const seen: unknown[] = [];
    calls.subscribe(record.callId, {
      event: (e) => seen.push(e.seq),
      end: (outcome) => seen.push(outcome?.forModel.results),
    });
    const followed: unknown[] = [];
    const ended = new Promise<void>((resolve) => {
      void calls.follow(record.callId, 0, {
        event: (e) => followed.push(e.seq),
        end: () => resolve(),
      });
    });
    await calls.settled(record.callId);
    await ended;
    expect(seen).toEqual([1, 2, 3, { path: '<workspace>/alice/x' }]);
    expect(followed).toEqual([1, 2, 3]);
    expect((await calls.get('o1', record.callId))?.response?.forModel.results).toEqual({
      path: '<workspace>/alice/x',
    });
  });

  it('only the owner finds a call', async () => {
    const calls = registry(async (request) => response(request.callId as string));
    const record = await calls.start(input);
    expect(await calls.get('o1', record.callId)).toEqual(record);
    expect(await calls.get('o2', record.callId)).toBeUndefined();
    expect(await calls.list('o2')).toEqual([]);
    await calls.settled(record.callId);
  });

  it('limits running calls per user (429) and lets the next one start once one settles', async () => {
    const releases: (() => void)[] = [];
    const calls = registry(
      (request) =>
        new Promise((resolve) => {
          releases.push(() => resolve(response(request.callId as string)));
        }),
      { maxRunningPerUser: 2 },
    );
    const a = await calls.start(input);
    await calls.start(input);
    await expect(calls.start(input)).rejects.toThrow(ApiError);
    expect((await calls.start({ ...input, owner: 'o2' })).status).toBe('running');
    await new Promise((r) => setImmediate(r));
    releases[0]?.();
    await calls.settled(a.callId);
    expect((await calls.start(input)).status).toBe('running');
    for (const release of releases) release();
  });

  it('cancel aborts the signal; a call that rejects still settles as failed with an event', async () => {
    const calls = registry(
      (request) =>
        new Promise((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => reject(new Error('boom')));
        }),
    );
    const record = await calls.start(input);
    const seen: string[] = [];
    calls.subscribe(record.callId, { event: (e) => seen.push(e.type), end: () => seen.push('end') });
    await new Promise((r) => setImmediate(r));
    expect(await calls.cancel(record)).toBe(true);
    await calls.settled(record.callId);
    expect((await calls.get('o1', record.callId))?.status).toBe('failed');
    expect(seen).toEqual(['failed', 'end']);
    expect(await calls.cancel(record)).toBe(false);
  });

  it('forgets settled calls after keepFinishedMinutes and beyond maxKeptCalls', async () => {
    let clock = 0;
    const calls = registry(
      async (request) => response(request.callId as string),
      { maxKeptCalls: 2, keepFinishedMinutes: 1 },
      () => clock,
    );
    const records = [await calls.start(input), await calls.start(input), await calls.start(input)];
    for (const record of records) await calls.settled(record.callId);
    await calls.sweep();
    expect(await calls.list('o1')).toHaveLength(2);
    clock = 61_000;
    await calls.sweep();
    expect(await calls.list('o1')).toHaveLength(0);
  });

  it('close cancels running calls and waits for them', async () => {
    const calls = registry(
      (request) =>
        new Promise((resolve) => {
          request.signal?.addEventListener('abort', () =>
            resolve(response(request.callId as string, 'cancelled')),
          );
        }),
    );
    const record = await calls.start(input);
    await new Promise((r) => setImmediate(r));
    await calls.close(1000);
    expect((await calls.get('o1', record.callId))?.status).toBe('cancelled');
  });
});
