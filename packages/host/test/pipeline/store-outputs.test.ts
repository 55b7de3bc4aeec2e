import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DisplayHints } from '@ferry/contract';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { answer } from '../../src/pipeline/answer.js';
import { storedSummary } from '../../src/pipeline/call-event-hooks.js';
import { collectOutputs } from '../../src/pipeline/collect-outputs.js';
import { type StoredOutput, storeOutputs } from '../../src/pipeline/store-outputs.js';
import type { Workspace } from '../../src/workspace/workspaces.js';
import { openTestStorage, sha256, type TestStorage } from './support/test-storage.js';

let st: TestStorage | undefined;
afterEach(() => st?.close());

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
});

async function run(result: CallToolResult, ws: Workspace, display?: Partial<DisplayHints>) {
  if (!st) throw new Error('no storage');
  const collected = await collectOutputs({
    result,
    workspace: ws,
    maxFileBytes: 100_000_000,
    deferredExpiresHours: 72,
  });
  if (!collected.ok) throw new Error('collect failed');
  const seen: StoredOutput[] = [];
  const stored = await storeOutputs({
    files: st.files,
    owner: st.owner,
    sessionId: 's1',
    outputs: collected.files,
    display: { ...collected.outcome.display, ...display },
    onStored: (s) => seen.push(s),
  });
  return { stored, seen, outcome: collected.outcome };
}

describe('storeOutputs', () => {
  it('streams base64, text and path outputs into My Files with the exact bytes', async () => {
    st = await openTestStorage();
    const ws = await st.workspaces.forUser('alice');
    const big = randomBytes(1_000_003);
    // Astral characters across the 64 Ki slice boundary must survive text slicing.
    const text = `${'x'.repeat(65_535)}😀${'é'.repeat(70_000)}`;
    await writeFile(join(ws.hostDir, 'chart.png'), big);
    const { stored, seen } = await run(
      json({
        results: 1,
        artifacts: [
          {
            name: 'big.bin',
            b64: big.toString('base64'),
            mime: 'application/octet-stream',
            description: 'Big',
          },
          {
            name: 'chart.png',
            path: `${ws.toolDir}/chart.png`,
            mime: 'image/png',
            category: 'visualization',
          },
        ],
      }),
      ws,
    );
    const mcp = await run(
      { content: [{ type: 'resource', resource: { uri: 'file:///t.txt', mimeType: 'text/plain', text } }] },
      ws,
    );
    const all = [...stored.stored, ...mcp.stored.stored];
    expect(all.map((s) => [s.record.name, s.record.size, s.record.sha256])).toEqual([
      ['big.bin', big.length, sha256(big)],
      ['chart.png', big.length, sha256(big)],
      ['t.txt', Buffer.byteLength(text), sha256(text)],
    ]);
    for (const s of all) expect(sha256(await st.read(s.record.id))).toBe(s.record.sha256);
    expect(seen).toEqual(stored.stored);
    expect(stored.stored[0]?.record).toMatchObject({
      source: 'generated',
      description: 'Big',
      sessionId: 's1',
      persist: true,
    });
    expect(stored.stored[1]?.record.category).toBe('visualization');
  });

  it('deferred files expire, temporary ones are session-only, category_hint fills in', async () => {
    st = await openTestStorage();
    const ws = await st.workspaces.forUser('alice');
    await writeFile(join(ws.hostDir, 'draft.md'), '# draft');
    const before = Date.now();
    const { stored } = await run(
      json({
        results: 1,
        artifacts: [{ name: 'a.txt', b64: 'QQ==', mime: 'text/plain' }],
        deferred_artifacts: [
          { name: 'draft.md', path: `${ws.toolDir}/draft.md`, mime: 'text/markdown', expires_hours: 2 },
        ],
        display: { storage_action: 'temporary', category_hint: 'scratch' },
      }),
      ws,
    );
    const [a, draft] = stored.stored;
    expect(a?.record).toMatchObject({
      source: 'generated',
      persist: false,
      category: 'scratch',
      expiresAt: null,
    });
    expect(a && storedSummary(a).temporary).toBe(true);
    expect(draft?.record).toMatchObject({ source: 'deferred', persist: false });
    const expires = draft?.record.expiresAt?.getTime() ?? 0;
    expect(expires).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000 + 1000);
  });

  it('session-only is what the stored record says, in the file_stored summary, the answer and the store', async () => {
    // persist_files_across_sessions off: every file is session-only, whatever storage_action says.
    // On: only storage_action=temporary makes one so. The file list (GET /api/files) reads the
    // same record (apps/ferry/test/files/temporary-flag.test.ts checks all three over HTTP).
    for (const [persistFlag, storageAction, sessionOnly] of [
      [false, 'store', true],
      [false, 'temporary', true],
      [true, 'store', false],
      [true, 'temporary', true],
    ] as const) {
      st = await openTestStorage({ persist_files_across_sessions: persistFlag });
      const ws = await st.workspaces.forUser('alice');
      const result = json({
        results: 1,
        artifacts: [{ name: 'a.txt', b64: 'QQ==', mime: 'text/plain' }],
        display: { storage_action: storageAction },
      });
      const { stored, seen, outcome } = await run(result, ws);
      const answered = answer({ outcome, ...stored, warnings: [] });
      const [file] = seen;
      if (!file) throw new Error('nothing stored');
      const listed = (await st.files.list(st.owner)).items;
      const case_ = `persist_files_across_sessions=${persistFlag}, storage_action=${storageAction}`;
      expect(storedSummary(file).temporary, case_).toBe(sessionOnly);
      expect(
        answered.forUi.files.map((f) => f.temporary),
        case_,
      ).toEqual([sessionOnly]);
      expect(
        listed.map((r) => [r.id, !r.persist]),
        case_,
      ).toEqual([[file.record.id, sessionOnly]]);
      await st.close();
      st = undefined;
    }
  });

  it('a file the store refuses is rejected with its code; the others are stored; links stay unstored', async () => {
    st = await openTestStorage({ max_file_size_mb: 0.001 });
    const ws = await st.workspaces.forUser('alice');
    const { stored } = await run(
      {
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              results: 1,
              artifacts: [
                {
                  name: 'big.bin',
                  b64: randomBytes(5000).toString('base64'),
                  mime: 'application/octet-stream',
                },
                { name: 'ok.txt', b64: 'b2s=', mime: 'text/plain' },
              ],
            }),
          },
          { type: 'resource_link', uri: 'https://example.com/x.parquet', name: 'x.parquet' },
        ],
      },
      ws,
    );
    expect(stored.stored.map((s) => s.record.name)).toEqual(['ok.txt']);
    expect(stored.rejected).toEqual([
      expect.objectContaining({
        name: 'big.bin',
        code: 'E_FILE_TOO_LARGE',
        error: expect.objectContaining({
          meta_data: expect.objectContaining({ error_code: 'E_FILE_TOO_LARGE' }),
        }),
      }),
    ]);
    expect(stored.unstored).toEqual([
      { name: 'x.parquet', origin: 'mcp_resource_link', reason: expect.stringMatching(/resources\/read/) },
    ]);
    expect((await st.files.list(st.owner)).items.map((f) => f.name)).toEqual(['ok.txt']);
  });
});
