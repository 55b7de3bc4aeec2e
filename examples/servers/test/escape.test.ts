import { lstat, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf, type TempDir, tempDir } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// These tools misbehave on purpose; the assertions check that they do exactly what the host's
// isolation tests rely on, and that the contract's lexical check already catches the plain cases.
describe('escape server (isolation fixtures) over stdio', () => {
  const server = useExampleServer('escape');
  let outside: TempDir;

  beforeAll(async () => {
    outside = await tempDir('ferry-outside-');
  });
  afterAll(async () => {
    await outside?.cleanup();
  });

  const workspaceOf = (user: string) => join(server.root, user);

  it('declares username only on the tools that write', async () => {
    const { tools } = await server.client.listTools();
    const withUsername = tools
      .filter((tool) => 'username' in (tool.inputSchema.properties ?? {}))
      .map((tool) => tool.name)
      .sort();
    expect(withUsername).toEqual(['symlink_artifact', 'write_outside']);
  });

  it('write_outside writes where it is told (no sandbox here) and returns that path', async () => {
    const target = join(outside.path, 'stolen.txt');
    const result = await server.client.callTool({
      name: 'write_outside',
      arguments: { target, username: 'alice' },
    });
    const payload = payloadOf(result);
    expect(payload.results).toEqual({ wrote: true, error: null, target });
    expect(payload.artifacts).toEqual([{ name: 'stolen.txt', path: target, mime: 'text/plain' }]);
    expect(await readFile(target, 'utf8')).toBe('written by write_outside for alice\n');
    const normalized = normalizeToolResult(result, { workspaceRoot: workspaceOf('alice') });
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.files).toEqual([]);
    expect(normalized.outcome.rejected.map((r) => r.code)).toEqual(['E_INVALID_PATH']);
  });

  it('write_outside reports a failed write and still returns the artifact', async () => {
    const target = join(outside.path, 'no-such-dir', 'x.txt');
    const payload = payloadOf(
      await server.client.callTool({ name: 'write_outside', arguments: { target, username: 'alice' } }),
    );
    expect(payload.results).toEqual({ wrote: false, error: 'ENOENT', target });
    expect(payload.artifacts).toEqual([{ name: 'x.txt', path: target, mime: 'text/plain' }]);
  });

  it.each([
    ['../../etc/passwd', 'artifact', 'artifacts'],
    ['/etc/passwd', 'artifact', 'artifacts'],
    ['/etc/passwd', 'deferred', 'deferred_artifacts'],
  ])('artifact_path returns %s verbatim as %s', async (path, as, field) => {
    const result = await server.client.callTool({ name: 'artifact_path', arguments: { path, as } });
    const payload = payloadOf(result);
    expect((payload[field] as { path: string }[])[0]?.path).toBe(path);
    const normalized = normalizeToolResult(result, { workspaceRoot: workspaceOf('alice') });
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.rejected.map((r) => r.code)).toEqual(['E_INVALID_PATH']);
  });

  it('symlink_artifact plants a link inside the workspace that resolves outside', async () => {
    const target = join(outside.path, 'secret.txt');
    await writeFile(target, 'secret\n');
    const result = await server.client.callTool({
      name: 'symlink_artifact',
      arguments: { target, username: 'carol', link_name: 'notes/link.txt' },
    });
    const link = join(workspaceOf('carol'), 'notes', 'link.txt');
    expect(payloadOf(result).artifacts).toEqual([{ name: 'link.txt', path: link, mime: 'text/plain' }]);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await realpath(link)).toBe(await realpath(target));
    // Lexically the path is inside, which is exactly why a host must resolve links before reading.
    const normalized = normalizeToolResult(result, { workspaceRoot: workspaceOf('carol') });
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.files.map((f) => f.source)).toEqual([{ kind: 'path', path: link }]);
  });

  it('symlink_artifact refuses a link name that leaves the workspace', async () => {
    const result = await server.client.callTool({
      name: 'symlink_artifact',
      arguments: { target: '/etc/passwd', username: 'carol', link_name: '../evil' },
    });
    expect(result.isError).toBe(true);
    await expect(lstat(join(server.root, 'evil'))).rejects.toThrow();
  });
});
