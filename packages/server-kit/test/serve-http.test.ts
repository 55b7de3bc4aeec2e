import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reportProgress } from '../src/progress.js';
import { type HttpServerHandle, serveHttp } from '../src/serve-http.js';

function createTestServer(aborted: string[], begun: string[] = []) {
  const server = new McpServer({ name: 'serve-http-test', version: '0.0.0' });
  server.registerTool('steps', { inputSchema: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await reportProgress(ctx, i, n, `step ${i}/${n}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { content: [{ type: 'text', text: `did ${n}` }] };
  });
  server.registerTool('wait', { description: 'never answers' }, async (ctx) => {
    begun.push('wait');
    ctx.mcpReq.signal.addEventListener('abort', () => aborted.push('wait'));
    return new Promise<CallToolResult>(() => {});
  });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: String(text.length) }],
  }));
  return server;
}

/** A raw HTTP exchange, to send what fetch refuses to (a foreign Host header). */
function raw(url: string, options: { method: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('serveHttp', () => {
  let handle: HttpServerHandle | undefined;
  let client: Client | undefined;
  const aborted: string[] = [];
  const begun: string[] = [];

  afterEach(async () => {
    await client?.close();
    await handle?.close();
    client = undefined;
    handle = undefined;
  });

  async function start(maxRequestBodyBytes?: number) {
    handle = await serveHttp(() => createTestServer(aborted, begun), {
      ...(maxRequestBodyBytes ? { maxRequestBodyBytes } : {}),
      onerror: () => {},
    });
    client = new Client({ name: 'serve-http-client', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    return { handle, client };
  }

  it('serves MCP at /mcp with progress streamed before the result', async () => {
    const { handle, client } = await start();
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}/mcp`);
    const updates: unknown[] = [];
    const result = await client.callTool(
      { name: 'steps', arguments: { n: 3 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'did 3' }]);
    expect(updates).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}/3` })));
  });

  it('answers 404 elsewhere and 403 to a foreign Host header (DNS rebinding)', async () => {
    const { handle } = await start();
    expect((await raw(`http://127.0.0.1:${handle.port}/other`, { method: 'GET' })).status).toBe(404);
    const foreign = await raw(handle.url, {
      method: 'POST',
      headers: {
        host: 'evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(foreign.status).toBe(403);
  });

  it('refuses a body over the limit with 413 and accepts one under it', async () => {
    const { handle, client } = await start(64 * 1024);
    const big = await raw(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { x: 'a'.repeat(70_000) },
      }),
    });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: { code: -32000 } });
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'b'.repeat(50_000) } });
    expect(ok.content).toEqual([{ type: 'text', text: '50000' }]);
  });

  it('aborts the handler when the client closes the connection, and closes with a call still open', async () => {
    await start();
    aborted.length = 0;
    begun.length = 0;
    // One exchange on its own connection (served statelessly, a tools/call needs no initialize):
    // the handler runs, then the client goes away by closing the socket. A fetch-based client may
    // keep its pooled socket open after it gives up, so this test holds the socket itself.
    const exchange = request(handle?.url as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    exchange.on('error', () => {});
    exchange.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait', arguments: {} },
      }),
    );
    await expect.poll(() => begun, { timeout: 10_000 }).toEqual(['wait']);
    expect(aborted).toEqual([]);
    exchange.destroy();
    await expect.poll(() => aborted, { timeout: 10_000 }).toEqual(['wait']);

    const other = new Client({ name: 'serve-http-client-2', version: '0.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(handle?.url as string)));
    const pending = other
      .callTool({ name: 'wait', arguments: {} }, { timeout: 10_000 })
      .catch(() => 'rejected');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await handle?.close();
    handle = undefined;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBe('rejected');
    await other.close();
  });
});
