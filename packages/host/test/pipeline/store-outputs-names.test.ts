// A tool output named with a path goes through the same normalizer as an upload: seed 000 §5.2's
// `..\..\..\windows\system32\file` and `a/file` are stored in My Files as `file` (real storage).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { collectOutputs } from '../../src/pipeline/collect-outputs.js';
import { storeOutputs } from '../../src/pipeline/store-outputs.js';
import type { Workspace } from '../../src/workspace/workspaces.js';
import { openTestStorage, type TestStorage } from './support/test-storage.js';

let st: TestStorage | undefined;
afterEach(() => st?.close());

async function store(value: unknown, ws: Workspace) {
  if (!st) throw new Error('no storage');
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }] };
  const collected = await collectOutputs({
    result,
    workspace: ws,
    maxFileBytes: 1_000_000,
    deferredExpiresHours: 72,
  });
  if (!collected.ok) throw new Error('collect failed');
  return storeOutputs({
    files: st.files,
    owner: st.owner,
    outputs: collected.files,
    display: collected.outcome.display,
  });
}

it('stores artifacts named with a Windows or POSIX path as `file`, new versions of one name', async () => {
  st = await openTestStorage();
  const ws = await st.workspaces.forUser('alice');
  await writeFile(join(ws.hostDir, 'out.txt'), 'from a path');
  const first = await store(
    {
      results: 1,
      artifacts: [
        {
          name: '..\\..\\..\\windows\\system32\\file',
          b64: Buffer.from('inline').toString('base64'),
          mime: 'text/plain',
        },
      ],
    },
    ws,
  );
  const second = await store(
    { results: 2, artifacts: [{ name: 'a/file', path: `${ws.toolDir}/out.txt`, mime: 'text/plain' }] },
    ws,
  );
  expect(first.rejected).toEqual([]);
  expect(second.rejected).toEqual([]);
  const records = [...first.stored, ...second.stored].map((s) => s.record);
  expect(records.map((r) => [r.name, r.version])).toEqual([
    ['file', 1],
    ['file', 2],
  ]);
  expect((await st.read(records[0]?.id ?? '')).toString()).toBe('inline');
  expect((await st.read(records[1]?.id ?? '')).toString()).toBe('from a path');
  expect((await st.files.list(st.owner, { allVersions: true })).items.map((f) => f.name)).toEqual([
    'file',
    'file',
  ]);
});
