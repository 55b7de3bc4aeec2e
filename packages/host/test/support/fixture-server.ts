// A small real MCP server (SDK v2) for connection tests: everything the pool must handle that the
// published servers cannot be asked to do on demand (crash, leave a child behind, send 50 MB,
// change its tool list, wait for a cancel). Run over stdio with `fixtureServer()` from
// ./servers.ts, or build one in-process with `createFixtureServer()` for HTTP tests.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export function createFixtureServer(name = 'fixture'): McpServer {
  const server = new McpServer(
    { name, version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  let sawCancel!: () => void;
  const firstCancel = new Promise<void>((resolve) => {
    sawCancel = resolve;
  });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

  server.registerTool('pid', { description: 'The server process id' }, async () => text(String(process.pid)));

  server.registerTool('env', { description: 'The process environment as JSON' }, async () =>
    text(JSON.stringify(process.env)),
  );

  server.registerTool(
    'big',
    { description: 'A text result of `bytes` bytes', inputSchema: z.object({ bytes: z.number().int() }) },
    async ({ bytes }) => text('x'.repeat(bytes)),
  );

  server.registerTool(
    'add_tool',
    {
      description: 'Registers a tool (sends tools/list_changed)',
      inputSchema: z.object({ name: z.string() }),
    },
    async ({ name: added }) => {
      server.registerTool(added, { description: 'added at runtime' }, async () => text(added));
      return text('added');
    },
  );

  server.registerTool(
    'spawn_child',
    { description: 'Starts a long-lived child; returns its pid' },
    async () => {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
      return text(String(child.pid));
    },
  );

  server.registerTool('crash', { description: 'Exits without answering' }, async () => {
    process.exit(3);
  });

  server.registerTool(
    'progress',
    {
      description: 'Reports `steps` progress notifications with messages',
      inputSchema: z.object({ steps: z.number().int(), delayMs: z.number().default(10) }),
    },
    async ({ steps, delayMs }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
          });
        }
      }
      return text('done');
    },
  );

  server.registerTool('wait_for_cancel', { description: 'Returns only when cancelled' }, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    // Tells a caller that asked for progress that the call is running, so it can cancel it now.
    if (token !== undefined) {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 0, message: 'waiting for cancel' },
      });
    }
    await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve()));
    sawCancel();
    return text('cancelled');
  });

  // Answers once some call was cancelled: a test awaits it instead of sleeping.
  server.registerTool('cancelled', { description: 'Waits for the first cancellation' }, async () => {
    await firstCancel;
    return text('yes');
  });

  return server;
}

// Run as a stdio server when executed directly.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await createFixtureServer().connect(new StdioServerTransport());
}
