// What every InstanceBus does with itself, run against the memory bus (the embedded default) and
// the Redis bus (scale mode), as storage's driver suite is run against each blob driver. What
// needs two instances is in redis-instance-bus.test.ts.
import { randomUUID } from 'node:crypto';
import { FerryError } from '@ferry/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InstanceBus, InstanceGoneError } from '../../src/shared/instance-bus.js';

export interface OpenedBus {
  bus: InstanceBus;
  close(): Promise<void>;
}

export function describeInstanceBus(name: string, open: () => Promise<OpenedBus>): void {
  describe(`${name} instance bus (one instance)`, () => {
    let opened: OpenedBus;
    let bus: InstanceBus;
    beforeEach(async () => {
      opened = await open();
      bus = opened.bus;
    });
    afterEach(async () => opened.close());

    it('a request to itself runs its handler with the payload and returns its answer', async () => {
      const seen: unknown[] = [];
      bus.handle('echo', async (payload) => {
        seen.push(payload);
        return { echoed: payload };
      });
      await expect(bus.request(bus.id, 'echo', { n: 1, s: 'å' })).resolves.toEqual({
        echoed: { n: 1, s: 'å' },
      });
      expect(seen).toEqual([{ n: 1, s: 'å' }]);
    });

    it("a handler's FerryError reaches the asker with its code, message and details; other errors as E_INTERNAL", async () => {
      bus.handle('refuse', async () => {
        throw new FerryError('E_NOT_FOUND', 'No open question', { elicitation: 'q1' });
      });
      bus.handle('crash', async () => {
        throw new Error('secret path /srv/x');
      });
      const refused = await bus.request(bus.id, 'refuse', {}).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(FerryError);
      expect(refused).toMatchObject({
        code: 'E_NOT_FOUND',
        message: 'No open question',
        details: { elicitation: 'q1' },
      });
      const crashed = await bus.request(bus.id, 'crash', {}).catch((error: unknown) => error);
      expect(crashed).toBeInstanceOf(FerryError);
      expect(crashed).toMatchObject({
        code: 'E_INTERNAL',
        details: { reason: 'handler_failed', kind: 'crash' },
      });
      expect((crashed as Error).message).not.toContain('/srv/x');
    });

    it('a kind without a handler is an internal error naming it; a kind is handled once', async () => {
      await expect(bus.request(bus.id, 'nobody', {})).rejects.toMatchObject({
        code: 'E_INTERNAL',
        details: { reason: 'no_handler', kind: 'nobody' },
      });
      bus.handle('twice', async () => 1);
      expect(() => bus.handle('twice', async () => 2)).toThrow(/already registered/);
    });

    it('a broadcast runs its own handler and resolves with its answer', async () => {
      bus.handle('count', async (payload) => ({ from: bus.id, payload }));
      await expect(bus.broadcast('count', 7)).resolves.toEqual([{ from: bus.id, payload: 7 }]);
    });

    it('is alive itself; an unknown instance is not, and asking it fails at once as gone', async () => {
      const stranger = randomUUID();
      expect(await bus.isAlive(bus.id)).toBe(true);
      expect(await bus.isAlive(stranger)).toBe(false);
      const started = Date.now();
      const error = await bus.request(stranger, 'echo', {}, 5_000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InstanceGoneError);
      expect(error).toMatchObject({ reason: 'instance_gone', instance: stranger, code: 'E_INTERNAL' });
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('a handler slower than the timeout fails the request as a timeout', async () => {
      bus.handle('stall', () => new Promise(() => {}));
      const error = await bus.request(bus.id, 'stall', {}, 150).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InstanceGoneError);
      expect(error).toMatchObject({ reason: 'instance_timeout' });
    });
  });
}
