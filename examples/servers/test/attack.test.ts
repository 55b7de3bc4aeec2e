import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  exampleScript,
  payloadOf,
  REPO_ROOT,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The attack server is meant for a sandbox; here (none) the checks are only that each tool does
// what the host's attack corpus relies on. The corpus itself: packages/host/test/sandbox/.
describe('attack server (sandbox attack corpus) over stdio', () => {
  let root: TempDir;
  let client: Client;

  beforeAll(async () => {
    root = await tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [exampleScript('attack')],
      cwd: REPO_ROOT,
      env: { ...getDefaultEnvironment(), FERRY_WORKSPACE_ROOT: root.path },
      stderr: 'pipe',
    });
    client = new Client({ name: 'test-attack', version: '0.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await root?.cleanup();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    payloadOf(await client.callTool({ name, arguments: args })) as {
      results: Record<string, unknown>;
      artifacts?: unknown[];
    };

  it('lists its tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'artifact',
      'fork_bomb',
      'fs_op',
      'inspect',
      'memory_hog',
      'net_connect',
      'open_files',
      'run',
      'swap_symlink',
      'tamper_input',
      'write_workspace',
    ]);
  });

  it('write_workspace writes into the workspace and returns it as a path artifact', async () => {
    const payload = await call('write_workspace', { name: 'a.txt', content: 'hello', username: 'alice' });
    const path = join(root.path, 'alice', 'a.txt');
    expect(payload.artifacts).toEqual([{ name: 'a.txt', path, mime: 'text/plain' }]);
    expect(await readFile(path, 'utf8')).toBe('hello');
  });

  it('fs_op reports the errno instead of failing, and returns the path as an artifact when asked', async () => {
    const missing = join(root.path, 'nope', 'x.txt');
    const payload = await call('fs_op', { op: 'write', path: missing, artifact: true });
    expect(payload.results).toEqual({ op: 'write', path: missing, ok: false, error: 'ENOENT' });
    expect(payload.artifacts).toEqual([{ name: 'x.txt', path: missing, mime: 'text/plain' }]);
    const listed = await call('fs_op', { op: 'list', path: root.path });
    expect(listed.results).toMatchObject({ ok: true, data: ['alice'] });
  });

  it('inspect and open_files report what the process sees', async () => {
    const { results } = await call('inspect', {});
    expect(results.uid).toBe(process.getuid?.());
    // Unsandboxed here, it sees the host's process table: the list is capped, the count is not.
    const processes = results.processes as { pid: number; cmd?: string }[];
    expect(processes.length).toBeGreaterThan(0);
    expect(processes.length).toBeLessThanOrEqual(32);
    expect(results.processCount).toBeGreaterThanOrEqual(processes.length);
    expect(Math.max(...processes.map((p) => p.cmd?.length ?? 0))).toBeLessThanOrEqual(160);
    expect((await call('open_files', { count: 5 })).results).toEqual({ opened: 5, error: null });
  });
});
