// One suite for every dialect of the conversation store (as test/catalog/catalog-suite.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationStore } from '../../src/conversations/types.js';

export function describeConversationStore(
  name: string,
  open: () => Promise<{
    store: ConversationStore;
    reopen(): Promise<ConversationStore>;
    cleanup(): Promise<void>;
  }>,
): void {
  describe(`conversation store (${name})`, () => {
    let store: ConversationStore;
    let reopen: () => Promise<ConversationStore>;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, reopen, cleanup } = await open());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    it('creates, appends in order and reads back the same messages after reopening', async () => {
      const created = await store.create('owner-a', { title: '  Sales\nreport  ' });
      expect(created.title).toBe('Sales report');
      expect(created.messageCount).toBe(0);
      const first = await store.append('owner-a', created.id, [
        { role: 'user', data: { text: 'hello ü' } },
        { role: 'assistant', data: { text: 'hi', toolCalls: [{ id: 'c1', arguments: { a: 1 } }] } },
      ]);
      expect(first?.map((m) => m.seq)).toEqual([1, 2]);
      const second = await store.append('owner-a', created.id, [{ role: 'tool', data: { content: '{}' } }]);
      expect(second?.[0]?.seq).toBe(3);

      // The reopened store shares its catalog's connection, which `cleanup` closes.
      const again = await reopen();
      const messages = await again.messages('owner-a', created.id);
      expect(messages?.map((m) => [m.seq, m.role, m.data])).toEqual([
        [1, 'user', { text: 'hello ü' }],
        [2, 'assistant', { text: 'hi', toolCalls: [{ id: 'c1', arguments: { a: 1 } }] }],
        [3, 'tool', { content: '{}' }],
      ]);
      const got = await again.get('owner-a', created.id);
      expect(got?.messageCount).toBe(3);
      expect(got?.createdAt).toBeInstanceOf(Date);
      expect(got?.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
    });

    it("hides one owner's conversations from another", async () => {
      const mine = await store.create('owner-b', { title: 'mine' });
      await store.append('owner-b', mine.id, [{ role: 'user', data: { text: 'secret' } }]);
      expect(await store.get('owner-c', mine.id)).toBeUndefined();
      expect(await store.messages('owner-c', mine.id)).toBeUndefined();
      expect(await store.append('owner-c', mine.id, [{ role: 'user', data: { text: 'x' } }])).toBeUndefined();
      expect(await store.rename('owner-c', mine.id, 'stolen')).toBeUndefined();
      expect(await store.delete('owner-c', mine.id)).toBe(false);
      expect((await store.list('owner-c')).items).toEqual([]);
      expect((await store.messages('owner-b', mine.id))?.length).toBe(1);
      expect((await store.get('owner-b', mine.id))?.title).toBe('mine');
    });

    it('lists newest first with totals and pages', async () => {
      const ids: string[] = [];
      for (const title of ['one', 'two', 'three']) ids.push((await store.create('owner-d', { title })).id);
      // Touch the first one: it becomes the most recent.
      await new Promise((r) => setTimeout(r, 5));
      await store.append('owner-d', ids[0] as string, [{ role: 'user', data: { text: 'bump' } }]);
      const page = await store.list('owner-d', { limit: 2 });
      expect(page.total).toBe(3);
      expect(page.items.length).toBe(2);
      expect(page.items[0]?.id).toBe(ids[0]);
      expect(page.items[0]?.messageCount).toBe(1);
      const rest = await store.list('owner-d', { limit: 2, offset: 2 });
      expect(rest.items.length).toBe(1);
      expect(new Set([...page.items, ...rest.items].map((c) => c.id))).toEqual(new Set(ids));
    });

    it('renames and deletes with the messages', async () => {
      const c = await store.create('owner-e');
      expect(c.title).toBe('');
      await store.append('owner-e', c.id, [{ role: 'user', data: { text: 'x' } }]);
      expect((await store.rename('owner-e', c.id, 'Renamed'))?.title).toBe('Renamed');
      expect(await store.delete('owner-e', c.id)).toBe(true);
      expect(await store.get('owner-e', c.id)).toBeUndefined();
      expect(await store.messages('owner-e', c.id)).toBeUndefined();
      expect(await store.delete('owner-e', c.id)).toBe(false);
    });

    it('keeps concurrent appends gapless and unique', async () => {
      const c = await store.create('owner-f');
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.append('owner-f', c.id, [{ role: 'user', data: { i } }])),
      );
      const seqs = (await store.messages('owner-f', c.id))?.map((m) => m.seq);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('rejects malformed messages before writing', async () => {
      const c = await store.create('owner-g');
      await expect(store.append('owner-g', c.id, [{ role: 'Bad Role', data: {} }])).rejects.toThrow(/role/);
      await expect(
        store.append('owner-g', c.id, [{ role: 'user', data: [] as unknown as Record<string, unknown> }]),
      ).rejects.toThrow(/JSON object/);
      expect(await store.messages('owner-g', c.id)).toEqual([]);
    });

    it('deleteOwner removes every conversation and message of that owner only', async () => {
      const a = await store.create('owner-h', { title: 'a' });
      const b = await store.create('owner-h', { title: 'b' });
      await store.append('owner-h', a.id, [{ role: 'user', data: { text: '1' } }]);
      await store.append('owner-h', b.id, [{ role: 'user', data: { text: '2' } }]);
      const kept = await store.create('owner-i', { title: 'kept' });
      await store.append('owner-i', kept.id, [{ role: 'user', data: { text: 'keep' } }]);

      expect(await store.deleteOwner('owner-h')).toBe(2);
      expect((await store.list('owner-h')).total).toBe(0);
      expect(await store.messages('owner-h', a.id)).toBeUndefined();
      expect((await store.messages('owner-i', kept.id))?.map((m) => m.data)).toEqual([{ text: 'keep' }]);
      expect(await store.deleteOwner('owner-h')).toBe(0);
    });
  });
}
