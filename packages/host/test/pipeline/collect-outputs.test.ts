import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CollectedOutputs, collectOutputs } from '../../src/pipeline/collect-outputs.js';
import { createWorkspaces, type Workspace } from '../../src/workspace/workspaces.js';

let dir: string;
let ws: Workspace;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-collect-'));
  ws = await createWorkspaces({ root: join(dir, 'ws') }).forUser('alice');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
});

async function collect(
  result: CallToolResult,
  before?: Awaited<ReturnType<Workspace['snapshot']>>,
  maxFileBytes = 1_000_000,
) {
  const collected = await collectOutputs({
    result,
    workspace: ws,
    before,
    maxFileBytes,
    deferredExpiresHours: 72,
  });
  if (!collected.ok) throw new Error(JSON.stringify(collected.error));
  return collected;
}

async function closeAll(collected: Extract<CollectedOutputs, { ok: true }>) {
  await Promise.all(collected.files.map((f) => f.opened?.close()));
}

describe('collectOutputs', () => {
  it('opens path artifacts and deferred artifacts through the workspace; b64 stays as it came', async () => {
    await mkdir(join(ws.hostDir, 'out'));
    await writeFile(join(ws.hostDir, 'out', 'report.html'), '<h1>R</h1>');
    await writeFile(join(ws.hostDir, 'draft.md'), '# D');
    const c = await collect(
      json({
        results: { ok: true },
        artifacts: [
          {
            name: 'report.html',
            path: `${ws.toolDir}/out/report.html`,
            mime: 'text/html',
            category: 'report',
          },
          { name: 'data.csv', b64: Buffer.from('a\n1\n').toString('base64'), mime: 'text/csv' },
        ],
        deferred_artifacts: [
          { name: 'draft.md', path: `${ws.toolDir}/draft.md`, mime: 'text/markdown', expires_hours: 5 },
        ],
      }),
    );
    expect(c.files.map((f) => [f.name, f.source.kind, f.size, f.opened?.hostPath])).toEqual([
      ['report.html', 'path', 10, join(ws.hostDir, 'out', 'report.html')],
      ['data.csv', 'base64', 4, undefined],
      ['draft.md', 'path', 3, join(ws.hostDir, 'draft.md')],
    ]);
    expect(c.files[2]?.deferred).toEqual({ nextActions: [], expiresHours: 5 });
    expect(c.rejected).toEqual([]);
    await closeAll(c);
  });

  it('detects files the result does not list; skips those it references and input_files', async () => {
    await writeFile(join(ws.hostDir, 'old.txt'), 'before the call');
    const before = await ws.snapshot();
    await writeFile(join(ws.hostDir, 'listed.txt'), 'listed');
    await mkdir(join(ws.hostDir, 'charts'));
    await writeFile(join(ws.hostDir, 'charts', 'listed.txt'), 'same name, other dir');
    await mkdir(ws.inputDir);
    await writeFile(join(ws.inputDir, 'in.csv'), 'input');
    const c = await collect(
      json({ results: 1, artifacts: [{ name: 'listed.txt', path: `${ws.toolDir}/listed.txt` }] }),
      before,
    );
    expect(c.files.map((f) => [f.name, f.origin, f.originalName])).toEqual([
      ['listed.txt', 'artifact', 'listed.txt'],
      ['listed (2).txt', 'workspace', 'listed.txt'],
    ]);
    expect(c.files[1]).toMatchObject({
      mime: 'text/plain',
      viewer: 'text',
      source: { kind: 'path', path: `${ws.toolDir}/charts/listed.txt` },
    });
    await closeAll(c);
  });

  it('overlapping calls of one user: a found file is taken once; a listed file is always its own call’s', async () => {
    // Both calls' windows are open while both files appear, so each call sees both.
    const beforeA = await ws.snapshot();
    const beforeB = await ws.snapshot();
    await writeFile(join(ws.hostDir, 'from-a.txt'), 'written by A, not listed');
    await writeFile(join(ws.hostDir, 'from-b.txt'), 'written by B, listed');
    const a = await collect(json({ results: 'a' }), beforeA);
    const b = await collect(
      json({ results: 'b', artifacts: [{ name: 'from-b.txt', path: `${ws.toolDir}/from-b.txt` }] }),
      beforeB,
    );
    // A finished first and took both unlisted files it saw; B still gets the file it listed, and
    // does not take from-a.txt again.
    expect(a.files.map((f) => [f.name, f.origin])).toEqual([
      ['from-a.txt', 'workspace'],
      ['from-b.txt', 'workspace'],
    ]);
    expect(b.files.map((f) => [f.name, f.origin])).toEqual([['from-b.txt', 'artifact']]);
    await closeAll(a);
    await closeAll(b);
    // Changed since: the next call that finds it takes it again.
    const beforeC = await ws.snapshot();
    await writeFile(join(ws.hostDir, 'from-a.txt'), 'rewritten by C');
    const c = await collect(json({ results: 'c' }), beforeC);
    expect(c.files.map((f) => f.name)).toEqual(['from-a.txt']);
    await closeAll(c);
  });

  it('no snapshot, no detection (remote servers)', async () => {
    await writeFile(join(ws.hostDir, 'x.txt'), 'x');
    expect((await collect(json({ results: 1 }))).files).toEqual([]);
  });

  it('refuses ../, absolute paths elsewhere, symlinks out and FIFOs with E_INVALID_PATH, reading nothing', async () => {
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await symlink(join(dir, 'secret.txt'), join(ws.hostDir, 'link.txt'));
    execFileSync('mkfifo', [join(ws.hostDir, 'pipe')]);
    const c = await collect(
      json({
        results: 'x',
        artifacts: [
          { name: 'up.txt', path: `${ws.toolDir}/../../secret.txt`, mime: 'text/plain' },
          { name: 'abs.txt', path: join(dir, 'secret.txt'), mime: 'text/plain' },
          { name: 'link.txt', path: `${ws.toolDir}/link.txt`, mime: 'text/plain' },
          { name: 'pipe', path: `${ws.toolDir}/pipe`, mime: 'text/plain' },
        ],
      }),
    );
    expect(c.files).toEqual([]);
    expect(c.rejected.map((r) => [r.name, r.code])).toEqual([
      ['up.txt', 'E_INVALID_PATH'],
      ['abs.txt', 'E_INVALID_PATH'],
      ['link.txt', 'E_INVALID_PATH'],
      ['pipe', 'E_INVALID_PATH'],
    ]);
    expect(c.rejected.map((r) => r.error?.meta_data.details)).toEqual([
      expect.objectContaining({
        attempted_path: `${ws.toolDir}/../../secret.txt`,
        allowed_prefix: `${ws.toolDir}/`,
      }),
      expect.objectContaining({ attempted_path: join(dir, 'secret.txt'), allowed_prefix: `${ws.toolDir}/` }),
      expect.objectContaining({ attempted_path: `${ws.toolDir}/link.txt` }),
      expect.objectContaining({ attempted_path: `${ws.toolDir}/pipe` }),
    ]);
  });

  it('a path artifact over max_file_size is rejected with E_FILE_TOO_LARGE', async () => {
    await writeFile(join(ws.hostDir, 'big.bin'), Buffer.alloc(100));
    const c = await collect(
      json({ results: 1, artifacts: [{ name: 'big.bin', path: `${ws.toolDir}/big.bin` }] }),
      undefined,
      50,
    );
    expect(c.files).toEqual([]);
    expect(c.rejected[0]).toMatchObject({
      code: 'E_FILE_TOO_LARGE',
      error: { meta_data: { details: { file_size_bytes: 100, current_limit_bytes: 50 } } },
    });
  });

  it('every form of the contract comes through: legacy arrays, returned_file_*, MCP content', async () => {
    const legacy = await collect(
      json({
        results: 'r',
        returned_file_names: ['a.txt'],
        returned_file_contents: [Buffer.from('A').toString('base64')],
      }),
    );
    expect(legacy.files.map((f) => [f.name, f.origin])).toEqual([['a.txt', 'legacy_array']]);
    const returned = await collect(json({ returned_file_name: 'r.txt', returned_file_base64: 'Ug==' }));
    expect(returned.files.map((f) => [f.name, f.origin])).toEqual([['r.txt', 'returned_file']]);
    const mcp = await collect({
      content: [
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///n.md', mimeType: 'text/markdown', text: '# N' } },
        { type: 'resource_link', uri: 'https://example.com/x.bin', name: 'x.bin' },
      ],
    });
    expect(mcp.files.map((f) => [f.name, f.origin, f.source.kind])).toEqual([
      ['image-1.png', 'mcp_image', 'base64'],
      ['n.md', 'mcp_resource', 'text'],
      ['x.bin', 'mcp_resource_link', 'resource_link'],
    ]);
  });
});
