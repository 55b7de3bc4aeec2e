import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferredArtifact, workspace, writeArtifact, writeWorkspaceFile } from '../src/artifacts.js';
import { type TempDir, tempDir } from './temp-dir.js';

describe('writing into the workspace', () => {
  let root: TempDir;
  beforeEach(async () => {
    root = await tempDir();
    vi.stubEnv('FERRY_WORKSPACE_ROOT', root.path);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await root.cleanup();
  });

  it('writeArtifact writes bytes and returns the v2.1 artifact with path, mime and size', async () => {
    const bytes = Uint8Array.of(0x89, 0x50, 0x4e, 0x47);
    const artifact = await writeArtifact('alice', 'charts/plot.png', bytes, {
      description: 'A plot',
      category: 'visualization',
      autoOpen: true,
      viewer: 'image',
    });
    const path = join(root.path, 'alice', 'charts', 'plot.png');
    expect(artifact).toEqual({
      name: 'plot.png',
      path,
      mime: 'image/png',
      size: 4,
      description: 'A plot',
      category: 'visualization',
      auto_open: true,
      viewer: 'image',
    });
    expect(new Uint8Array(await readFile(path))).toEqual(bytes);
  });

  it('writes text as UTF-8, replaces an existing file and honours name and mime', async () => {
    await writeArtifact('alice', 'notes.txt', 'an older and longer text');
    const artifact = await writeArtifact('alice', 'notes.txt', 'Grüße', {
      name: 'Notes',
      mime: 'text/markdown',
    });
    expect(artifact).toMatchObject({ name: 'Notes', mime: 'text/markdown', size: 7 });
    expect(await readFile(join(root.path, 'alice', 'notes.txt'), 'utf8')).toBe('Grüße');
  });

  it('streams a Readable or any async iterable without buffering it whole', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`);
    const fromStream = await writeArtifact('alice', 'a.csv', Readable.from(lines));
    async function* generate() {
      for (const line of lines) yield Buffer.from(line);
    }
    const fromGenerator = await writeWorkspaceFile('alice', 'b.csv', generate());
    const expected = lines.join('');
    expect(fromStream).toMatchObject({ mime: 'text/csv', size: Buffer.byteLength(expected) });
    expect(fromGenerator.size).toBe(Buffer.byteLength(expected));
    expect(await readFile(join(root.path, 'alice', 'a.csv'), 'utf8')).toBe(expected);
    expect(await readFile(join(root.path, 'alice', 'b.csv'), 'utf8')).toBe(expected);
  });

  it('deferredArtifact writes the file and returns the deferred fields', async () => {
    const deferred = await deferredArtifact('alice', 'draft.md', '# Draft\n', {
      description: 'To edit',
      reason: 'needs_editing',
      nextActions: ['Edit it'],
      category: 'draft',
      expiresHours: 24,
    });
    expect(deferred).toEqual({
      name: 'draft.md',
      path: join(root.path, 'alice', 'draft.md'),
      mime: 'text/markdown',
      description: 'To edit',
      reason: 'needs_editing',
      next_actions: ['Edit it'],
      category: 'draft',
      expires_hours: 24,
    });
    expect(await readFile(deferred.path, 'utf8')).toBe('# Draft\n');
  });

  it('refuses names that leave the workspace and writes nothing', async () => {
    for (const name of ['../bob/x.txt', '/etc/x.txt', 'input_files/x.csv']) {
      await expect(writeArtifact('alice', name, 'x')).rejects.toMatchObject({ code: 'E_INVALID_PATH' });
    }
    // Refused lexically, before the workspace is even created.
    expect(await readdir(root.path)).toEqual([]);
  });

  it('never writes through a symlink planted at the name', async () => {
    const victim = join(root.path, 'victim.txt');
    await writeFile(victim, 'original');
    await writeArtifact('alice', 'placeholder', 'x');
    await symlink(victim, join(root.path, 'alice', 'out.txt'));
    await expect(writeArtifact('alice', 'out.txt', 'overwritten')).rejects.toMatchObject({
      code: 'E_INVALID_PATH',
    });
    expect(await readFile(victim, 'utf8')).toBe('original');
  });

  it('workspace() binds the helpers to one user', async () => {
    const files = workspace('carol');
    expect(files.dir).toBe(join(root.path, 'carol'));
    expect(await files.resolve('x/y.txt')).toBe(join(root.path, 'carol', 'x', 'y.txt'));
    expect((await files.writeArtifact('r.json', '{}')).mime).toBe('application/json');
    expect((await files.deferredArtifact('d.txt', 'd')).path).toBe(join(root.path, 'carol', 'd.txt'));
    expect(() => workspace('../carol')).toThrow(/Invalid username/);
  });
});
