import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reportProgress } from '../src/progress.js';

// A real McpServer and Client over the SDK's linked in-memory transports.
async function connect() {
  const server = new McpServer({ name: 'progress-test', version: '0.0.0' });
  server.registerTool('count', { inputSchema: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
    const sent: boolean[] = [];
    for (let i = 1; i <= n; i++) sent.push(await reportProgress(ctx, i, n, `step ${i}/${n}`));
    // Yield so the last notification is dispatched before the response retires its handler.
    await new Promise((resolve) => setTimeout(resolve, 20));
    sent.push(await reportProgress(ctx, n + 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { content: [{ type: 'text', text: JSON.stringify(sent) }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'progress-test-client', version: '0.0.0' });
  await client.connect(clientSide);
  return { client, server };
}

describe('reportProgress', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  it('sends notifications/progress for the current request, in order, with total and message', async () => {
    const { client, server } = await connect();
    close = async () => {
      await client.close();
      await server.close();
    };
    const updates: unknown[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { n: 3 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(updates).toEqual([
      { progress: 1, total: 3, message: 'step 1/3' },
      { progress: 2, total: 3, message: 'step 2/3' },
      { progress: 3, total: 3, message: 'step 3/3' },
      { progress: 4 },
    ]);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual([true, true, true, true]);
  });

  it('is a no-op that answers false when the client gave no progress token', async () => {
    const { client, server } = await connect();
    close = async () => {
      await client.close();
      await server.close();
    };
    const result = await client.callTool({ name: 'count', arguments: { n: 2 } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual([false, false, false]);
  });

  it('uses the token from _meta and the request-scoped notify', async () => {
    const sent: unknown[] = [];
    const ctx = {
      mcpReq: { _meta: { progressToken: 'tok' }, notify: async (n: unknown) => void sent.push(n) },
    };
    expect(await reportProgress(ctx, 0.5)).toBe(true);
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 'tok', progress: 0.5 } },
    ]);
  });
});
