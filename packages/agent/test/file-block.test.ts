import type { FileRecord } from '@ferry/storage';
import { describe, expect, it } from 'vitest';
import { augmentUserText, buildFileBlock } from '../src/file-block.js';

function record(i: number, extra: Partial<FileRecord> = {}): FileRecord {
  return {
    id: `id-${i}`,
    owner: 'o',
    name: `file-${String(i).padStart(5, '0')}.csv`,
    version: 1,
    size: 1000 + i,
    mime: 'text/csv',
    sha256: '',
    source: 'uploaded',
    category: null,
    description: null,
    sessionId: null,
    persist: true,
    expiresAt: null,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    info: { rows: 10, columns: 2 },
    blobKey: 'k',
    ...extra,
  };
}

describe('the file block', () => {
  it('lists uploaded, generated and deferred files with their facts', async () => {
    const items = [
      record(1),
      record(2, {
        name: 'chart.png',
        source: 'generated',
        mime: 'image/png',
        info: { width: 640, height: 360 },
      }),
      record(3, { name: 'notes.md', source: 'deferred', description: 'Draft, to complete' }),
      record(4, {
        name: 'plan.docx',
        source: 'deferred',
        description: 'A plan',
        info: { deferredReason: 'awaiting_review', nextActions: ['review'] },
      }),
    ];
    const block = await buildFileBlock({ list: async () => ({ items, total: 4 }) }, 'o');
    expect(block).toBe(
      [
        '[SYSTEM: Available files in current session:',
        '- file-00001.csv (uploaded 2026-01-01, 1 KB, 10 rows, 2 columns)',
        '- chart.png (generated 2026-01-01, 1 KB, 640×360 px)',
        '- plan.docx (deferred, awaiting review)',
        '- notes.md (deferred, Draft, to complete)',
        'End available files]',
      ].join('\n'),
    );
    expect(augmentUserText('hi', block)).toBe(`hi\n\n${block}`);
    expect(augmentUserText('hi', '')).toBe('hi');
  });

  it('caps a huge library and counts what is left out against the whole library', async () => {
    const asked: unknown[] = [];
    const files = {
      list: async (_owner: string, options?: unknown) => {
        asked.push(options);
        return { items: Array.from({ length: 11 }, (_, i) => record(50_000 - i)), total: 50_000 };
      },
    };
    const block = await buildFileBlock(files, 'o', { maxEntries: 5 });
    const lines = block.split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[6]).toBe('- …and 49995 more');
    expect(asked).toEqual([{ sort: 'created', order: 'desc', limit: 11 }]);
  });

  it('is empty for a user without files', async () => {
    expect(await buildFileBlock({ list: async () => ({ items: [], total: 0 }) }, 'o')).toBe('');
  });
});
