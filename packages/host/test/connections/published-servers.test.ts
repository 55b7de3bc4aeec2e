import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INHERITED_ENV_VARS, LOCAL_SERVER_ENV_DEFAULTS } from '@ferry/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { never, poolPerTest, textOf } from '../support/pool-per-test.js';
import { everythingServer, filesystemServer } from '../support/servers.js';

// The published reference servers, unmodified, over stdio through the pool.

const start = poolPerTest();

describe('@modelcontextprotocol/server-everything over stdio', () => {
  it('lists its tools and calls echo', async () => {
    const { pool } = start({ everything: everythingServer() });
    const connection = await pool.get('everything', 'alice');
    const names = (await connection.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-env', 'trigger-long-running-operation']));
    const result = await connection.callTool(
      { name: 'echo', arguments: { message: 'hello from ferry' } },
      { signal: never() },
    );
    expect(textOf(result)).toBe('Echo: hello from ferry');
  });

  it('forwards the progress of trigger-long-running-operation', async () => {
    const { pool } = start({ everything: everythingServer() });
    const connection = await pool.get('everything', 'alice');
    const updates: unknown[] = [];
    const result = await connection.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { signal: never(), onProgress: (update) => updates.push(update) },
    );
    expect(textOf(result)).toMatch(/Long running operation completed/);
    expect(updates).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('refreshes the tool list on the list_changed it sends after initialization', async () => {
    // server-everything registers simulate-research-query once the client is initialized, which
    // sends notifications/tools/list_changed.
    const { pool, log } = start({ everything: everythingServer() });
    const connection = await pool.get('everything', 'alice');
    await log.waitFor((e) => e.type === 'tools-changed', { past: true });
    expect((await connection.listTools()).map((t) => t.name)).toContain('simulate-research-query');
  });

  it('gives the process only the allowlisted and configured environment (get-env)', async () => {
    process.env.FERRY_TEST_SECRET = 'must-not-leak';
    try {
      const { pool } = start({ everything: everythingServer({ env: { FERRY_GREETING: 'hello {{user}}' } }) });
      const connection = await pool.get('everything', 'alice');
      const env = JSON.parse(
        textOf(await connection.callTool({ name: 'get-env', arguments: {} }, { signal: never() })),
      );
      expect(env.FERRY_GREETING).toBe('hello alice');
      expect(env).not.toHaveProperty('FERRY_TEST_SECRET');
      const allowed = [...INHERITED_ENV_VARS, ...Object.keys(LOCAL_SERVER_ENV_DEFAULTS), 'FERRY_GREETING'];
      for (const name of Object.keys(env)) expect(allowed).toContain(name);
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.FERRY_TEST_SECRET;
    }
  });
});

describe('@modelcontextprotocol/server-filesystem over stdio', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'ferry-fs-'));
    writeFileSync(join(directory, 'report.csv'), 'a,b\n1,2\n');
    mkdirSync(join(directory, 'charts'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('lists a directory it was given', async () => {
    const { pool } = start({ files: filesystemServer(directory) });
    const connection = await pool.get('files', 'alice');
    expect((await connection.listTools()).map((t) => t.name)).toContain('list_directory');
    const result = await connection.callTool(
      { name: 'list_directory', arguments: { path: directory } },
      { signal: never() },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result).split('\n').sort()).toEqual(['[DIR] charts', '[FILE] report.csv']);
  });
});
