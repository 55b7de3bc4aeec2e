// What a call no longer recomputes (the conventions of a tool's schema, the user's effective flags)
// is still current on the next call: a server's tools/list_changed brings the new schema's
// conventions, and a changed per-user flag applies to the very next call.
import { join } from 'node:path';
import { createSqliteCatalog, loadStorageConfig } from '@ferry/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, type ToolCallDeps } from '../../src/pipeline/call-tool.js';
import { DEFAULT_TIMEOUTS } from '../../src/pipeline/call-with-watchdog.js';
import { resolveConventions } from '../../src/pipeline/resolve-conventions.js';
import { poolPerTest } from '../support/pool-per-test.js';
import { openTestStorage, type TestStorage } from './support/test-storage.js';

// A stdio server whose one tool, `echo`, answers with the arguments it received. Its schema first
// declares `username` (it answers the arguments it received); the tool `switch` replaces that with `filename` and sends
// notifications/tools/list_changed, as a server that changes its tools at run time does.
// `inject` (file-injection pattern) answers the length of the base64 Ferry filled in.
const SWITCHING_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
let declared = 'username';
const text = (t) => ({ content: [{ type: 'text', text: t }] });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'switching', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ id: m.id, result: { tools: [
      { name: 'echo', inputSchema: { type: 'object', properties: { [declared]: { type: 'string' } } } },
      { name: 'switch', inputSchema: { type: 'object' } },
      { name: 'inject', inputSchema: { type: 'object', properties: {
        filename: { type: 'string' }, file_data_base64: { type: 'string' } } } },
    ] } });
  } else if (m.method === 'tools/call' && m.params.name === 'echo') {
    const args = m.params.arguments ?? {};
    // A file handed over by path is read, so the answer shows the bytes arrived (the model
    // sees paths replaced by names).
    const read = typeof args.filename === 'string' ? { content: require('node:fs').readFileSync(args.filename, 'utf8') } : {};
    send({ id: m.id, result: text(JSON.stringify({ ...args, ...read })) });
  } else if (m.method === 'tools/call' && m.params.name === 'inject') {
    send({ id: m.id, result: text(String(m.params.arguments.file_data_base64.length)) });
  } else if (m.method === 'tools/call' && m.params.name === 'switch') {
    declared = 'filename';
    send({ method: 'notifications/tools/list_changed' });
    send({ id: m.id, result: text('switched') });
  } else if (m.id !== undefined) {
    send({ id: m.id, result: {} });
  }
});`;

const startPool = poolPerTest();
let st: TestStorage | undefined;
afterEach(async () => {
  await st?.close();
  st = undefined;
});

function depsFor(storage: TestStorage, pool: ToolCallDeps['pool']): ToolCallDeps {
  return {
    pool,
    files: storage.files,
    workspaces: storage.workspaces,
    serverSettings: () => ({
      fileMode: 'path',
      timeouts: { ...DEFAULT_TIMEOUTS },
      detectWorkspaceFiles: false,
    }),
    downloadUrl: (id, token) => `https://ferry.test/api/files/${id}/content?token=${token}`,
    emit: () => {},
  };
}

describe('per-call caches', () => {
  it("uses a tool's new schema after the server's tools/list_changed", async () => {
    st = await openTestStorage();
    const { pool, log } = startPool({
      switching: { transport: 'stdio', command: process.execPath, args: ['-e', SWITCHING_SERVER] },
    });
    const deps = depsFor(st, pool);
    const storage = st;
    const echo = async () => {
      const response = await callTool(
        {
          user: { owner: storage.owner, username: storage.username },
          server: 'switching',
          tool: 'echo',
          arguments: { username: 'mallory', filename: 'notes.txt' },
        },
        deps,
      );
      expect(response.status).toBe('finished');
      // What the server received, as it answered it (JSON in text reaches the model parsed).
      return response.forModel.results as Record<string, unknown>;
    };
    await storage.put('notes.txt', 'hello');

    // Declared `username`: Ferry writes the signed-in user over the model's value and drops
    // the undeclared `filename`. Twice, so the second call is served from the kept conventions.
    expect(await echo()).toEqual({ username: 'alice' });
    expect(await echo()).toEqual({ username: 'alice' });

    const switched = await callTool(
      {
        user: { owner: storage.owner, username: storage.username },
        server: 'switching',
        tool: 'switch',
        arguments: {},
      },
      deps,
    );
    expect(switched.status).toBe('finished');
    await log.waitFor((event) => event.type === 'tools-changed', { past: true });

    // Now `filename` is declared and `username` is not: the file is handed over by path.
    expect(await echo()).toEqual({ filename: 'notes.txt', content: 'hello' });
  });

  it('applies a per-user flag changed in the catalog to the next call', async () => {
    st = await openTestStorage();
    const storage = st;
    // A second catalog on the same database, as an operator's tool changes a user's row: nothing
    // in this FileStore or pipeline is told about the change.
    const config = loadStorageConfig({ env: { FERRY_DATA_DIR: join(storage.dir, 'data') } });
    if (config.catalog.driver !== 'sqlite') throw new Error('expected the embedded SQLite catalog');
    const catalog = await createSqliteCatalog({ filename: config.catalog.filename });
    try {
      const { pool } = startPool({
        switching: { transport: 'stdio', command: process.execPath, args: ['-e', SWITCHING_SERVER] },
      });
      const deps = depsFor(storage, pool);
      await storage.put('big.bin', Buffer.alloc(3000, 7));
      const inject = () =>
        callTool(
          {
            user: { owner: storage.owner, username: storage.username },
            server: 'switching',
            tool: 'inject',
            arguments: { filename: 'big.bin' },
          },
          deps,
        );
      const ok = await inject();
      expect(ok.status).toBe('finished');
      expect(ok.forModel.results).toBe('4000');

      // base64_size_limit_mb 0.001 = 1048 bytes: the 3000-byte file may no longer be injected.
      await catalog.updateUser(storage.owner, { flags: { base64_size_limit_mb: 0.001 } });
      const refused = await inject();
      expect(refused.status).toBe('failed');
      expect(refused.forModel.error?.code).toBe('E_FILE_TOO_LARGE');

      await catalog.updateUser(storage.owner, { flags: null });
      const again = await inject();
      expect(again.status).toBe('finished');
      expect(again.forModel.results).toBe('4000');
    } finally {
      await catalog.close();
    }
  });

  it('keeps one frozen answer per schema object, and a new object gets its own', () => {
    const schema = { type: 'object', properties: { username: { type: 'string' } } };
    const first = resolveConventions(schema);
    expect(resolveConventions(schema)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.fileInputs)).toBe(true);
    const changed = { type: 'object', properties: { filename: { type: 'string' } } };
    expect(resolveConventions(changed)).not.toBe(first);
    expect(resolveConventions(changed)).toMatchObject({ username: false, filename: true });
    expect(first).toMatchObject({ username: true, filename: false });
  });
});
