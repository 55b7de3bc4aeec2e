import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMainModule, parseServerArgs, runServer } from '../src/run-server.js';

describe('parseServerArgs', () => {
  it('selects stdio unless --http is given', () => {
    expect(parseServerArgs([])).toEqual({ transport: 'stdio' });
    expect(parseServerArgs(['--verbose'])).toEqual({ transport: 'stdio' });
  });

  it('reads --http <port> and --http=<port>, 0 included', () => {
    expect(parseServerArgs(['--http', '8811'])).toEqual({ transport: 'http', port: 8811 });
    expect(parseServerArgs(['x', '--http=0'])).toEqual({ transport: 'http', port: 0 });
  });

  it.each([[['--http']], [['--http', 'abc']], [['--http', '70000']], [['--http=-1']], [['--http=']]])(
    'refuses %j',
    (argv) => {
      expect(() => parseServerArgs(argv)).toThrow(/--http needs a port/);
    },
  );
});

describe('isMainModule', () => {
  it('compares the module with the script Node started', () => {
    const here = join(import.meta.dirname, 'run-server.test.ts');
    expect(isMainModule(pathToFileURL(here).href, here)).toBe(true);
    expect(isMainModule(import.meta.url, join(import.meta.dirname, 'results.test.ts'))).toBe(false);
    expect(isMainModule(import.meta.url, undefined)).toBe(false);
    expect(isMainModule(import.meta.url, '/no/such/file.ts')).toBe(false);
  });
});

describe('runServer over HTTP', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('listens on 127.0.0.1, prints the URL on stderr and serves a fresh server per request', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    let created = 0;
    const factory = () => {
      created++;
      const server = new McpServer({ name: 'run-server-test', version: '0.0.0' });
      server.registerTool('ping', { description: 'pong' }, async () => ({
        content: [{ type: 'text', text: 'pong' }],
      }));
      return server;
    };
    const sigterm = process.listenerCount('SIGTERM');
    const running = await runServer(factory, { name: 'test', argv: ['--http', '0'] });
    expect(running.transport).toBe('http');
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(log).toHaveBeenCalledWith(`listening on ${running.url}`);
    expect(process.listenerCount('SIGTERM')).toBe(sigterm + 1);

    const client = new Client({ name: 'run-server-client', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url as string)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['ping']);
    expect((await client.callTool({ name: 'ping', arguments: {} })).content).toEqual([
      { type: 'text', text: 'pong' },
    ]);
    expect(created).toBeGreaterThanOrEqual(2);
    await client.close();
    await running.close();
    expect(process.listenerCount('SIGTERM')).toBe(sigterm);
  });
});
