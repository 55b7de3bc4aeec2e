import { describe, expect, it } from 'vitest';
import { never, poolPerTest, textOf } from '../support/pool-per-test.js';

// tools/list against a minimal stdio server that pages its list (one tool per page) and counts
// the tools/list requests it receives, so the cache is checked on the wire, not by identity.
const PAGED_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const tools = ['alpha', 'beta', 'gamma'];
let listRequests = 0;
const tool = (name) => ({ name, inputSchema: { type: 'object' } });
rl.on('line', (text) => {
  const m = JSON.parse(text);
  if (m.method === 'initialize') {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'paged', version: '1' } } });
  } else if (m.method === 'tools/list') {
    listRequests += 1;
    const at = Number(m.params?.cursor ?? 0);
    const page = { tools: [tool(tools[at])] };
    if (at + 1 < tools.length) page.nextCursor = String(at + 1);
    send({ id: m.id, result: page });
  } else if (m.method === 'tools/call' && m.params.name === 'count') {
    send({ id: m.id, result: { content: [{ type: 'text', text: String(listRequests) }] } });
  } else if (m.method === 'tools/call' && m.params.name === 'add') {
    tools.push('delta');
    send({ method: 'notifications/tools/list_changed' });
    send({ id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } });
  }
});`;

const start = poolPerTest();

describe('tools/list cache', () => {
  it('fetches every page once, serves the cache, and refetches after list_changed', async () => {
    const { pool, log } = start({
      paged: { transport: 'stdio', command: process.execPath, args: ['-e', PAGED_SERVER] },
    });
    const connection = await pool.get('paged', 'alice');
    const count = async () =>
      textOf(await connection.callTool({ name: 'count', arguments: {} }, { signal: never() }));

    const [first, concurrent] = await Promise.all([connection.listTools(), connection.listTools()]);
    expect(first.map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(concurrent).toBe(first);
    expect(await count()).toBe('3');
    await connection.listTools();
    expect(await count()).toBe('3');

    await connection.callTool({ name: 'add', arguments: {} }, { signal: never() });
    await log.waitFor((e) => e.type === 'tools-changed', { past: true });
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma', 'delta']);
    expect(await count()).toBe('7');
  });
});
