// The host side of the MCP Apps protocol: ext-apps' AppBridge with Ferry's handlers (AppHost),
// driven two ways over an in-memory transport: by ext-apps' own App (the view SDK), and by raw
// JSON-RPC as a hand-written view sends it. What it answers, what it holds back until the view
// has initialized, how it tears down; and the postMessage transport's origin checks.

import { InMemoryTransport } from '@modelcontextprotocol/client';
import { App } from '@modelcontextprotocol/ext-apps';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AppHost,
  type AppHostHandlers,
  AppRpcError,
  type CallToolResult,
  RPC,
  SandboxProxyTransport,
} from '../../src/apps/app-bridge';

type Wire = Record<string, unknown> & { id?: unknown; method?: string; params?: unknown };

const HOST_CONTEXT = {
  theme: 'dark' as const,
  displayMode: 'inline' as const,
  locale: 'en-GB',
  timeZone: 'Europe/London',
  platform: 'web' as const,
  containerDimensions: { width: 640, maxHeight: 4000 },
  toolInfo: { tool: { name: 'show', inputSchema: { type: 'object' as const } } },
};

const hosts: AppHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

function makeHost(overrides: Partial<AppHostHandlers> = {}) {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const sizes: { width?: number; height?: number }[] = [];
  const host = new AppHost({
    hostInfo: { name: 'Ferry', version: '9.9.9' },
    capabilities: { openLinks: {}, serverTools: {}, logging: {}, sandbox: { csp: {} } },
    hostContext: HOST_CONTEXT,
    resource: { html: '<p>view</p>', csp: { connectDomains: ['https://api.test'] } },
    handlers: {
      callTool: async (name, args) => {
        calls.push({ name, args });
        return { content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] };
      },
      openLink: async () => undefined,
      message: async () => undefined,
      onSizeChanged: (size) => sizes.push(size),
      ...overrides,
    },
  });
  hosts.push(host);
  return { host, calls, sizes };
}

/** The host on one end of an in-memory pair; the test speaks raw JSON-RPC on the other. */
async function rawView(overrides: Partial<AppHostHandlers> = {}) {
  const made = makeHost(overrides);
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const received: Wire[] = [];
  const waiters: { match: (m: Wire) => boolean; resolve: (m: Wire) => void }[] = [];
  viewSide.onmessage = (message) => {
    const wire = message as Wire;
    received.push(wire);
    for (const w of waiters.filter((x) => x.match(wire))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(wire);
    }
  };
  await viewSide.start();
  await made.host.connect(hostSide);
  const next = (match: (m: Wire) => boolean) =>
    new Promise<Wire>((resolve) => {
      const seen = received.find(match);
      if (seen) resolve(seen);
      else waiters.push({ match, resolve });
    });
  let id = 0;
  const request = async (method: string, params: unknown = {}) => {
    const requestId = `r${++id}`;
    await viewSide.send({ jsonrpc: '2.0', id: requestId, method, params } as never);
    return next((m) => m.id === requestId && m.method === undefined);
  };
  const notify = (method: string, params: unknown = {}) =>
    viewSide.send({ jsonrpc: '2.0', method, params } as never);
  const initialize = async () => {
    const answer = await request('ui/initialize', {
      protocolVersion: '2026-01-26',
      appInfo: { name: 'raw', version: '1' },
      appCapabilities: {},
    });
    await notify('ui/notifications/initialized');
    return answer;
  };
  return { ...made, received, next, request, notify, initialize };
}

/** The host and ext-apps' App (the view SDK) connected in memory. */
async function sdkView(overrides: Partial<AppHostHandlers> = {}) {
  const made = makeHost(overrides);
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  await made.host.connect(hostSide);
  const app = new App({ name: 'sdk-view', version: '1.0.0' }, {}, { autoResize: false });
  const inputs: unknown[] = [];
  const results: unknown[] = [];
  const contexts: unknown[] = [];
  app.ontoolinput = (params) => inputs.push(params.arguments);
  app.ontoolresult = (params) => results.push(params);
  app.onhostcontextchanged = (params) => contexts.push(params);
  return { ...made, app, inputs, results, contexts, connect: () => app.connect(viewSide) };
}

describe('AppHost with the ext-apps App', () => {
  it('answers initialize with Ferry, its capabilities and the host context', async () => {
    const { app, connect } = await sdkView();
    await connect();
    expect(app.getHostVersion()).toEqual({ name: 'Ferry', version: '9.9.9' });
    expect(app.getHostCapabilities()).toEqual({
      openLinks: {},
      serverTools: {},
      logging: {},
      sandbox: { csp: {} },
    });
    expect(app.getHostContext()).toEqual(HOST_CONTEXT);
    await app.close();
  });

  it('delivers the tool input and result after the handshake, in order', async () => {
    const { host, app, inputs, results, connect } = await sdkView();
    host.sendToolInput({ filename: 'a.csv' });
    host.sendToolResult({ content: [{ type: 'text', text: 'done' }], structuredContent: { rows: 2 } });
    await connect();
    await expect.poll(() => results.length).toBe(1);
    expect(inputs).toEqual([{ filename: 'a.csv' }]);
    expect(results).toEqual([{ content: [{ type: 'text', text: 'done' }], structuredContent: { rows: 2 } }]);
    await app.close();
  });

  it("runs the view's tool calls, messages and links through the handlers", async () => {
    const asked: string[] = [];
    const { app, calls, connect } = await sdkView({
      openLink: async (url) => {
        asked.push(`link ${url}`);
        throw new AppRpcError(RPC.denied, 'Link opening denied by user');
      },
      message: async (text) => {
        asked.push(`message ${text}`);
      },
    });
    await connect();
    const result = await app.callServerTool({ name: 'save', arguments: { name: 'x' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'save {"name":"x"}' }] });
    expect(calls).toEqual([{ name: 'save', args: { name: 'x' } }]);
    await expect(
      app.sendMessage({ role: 'user', content: [{ type: 'text', text: 'Looks good' }] }),
    ).resolves.toEqual({});
    await expect(app.openLink({ url: 'https://x.test/' })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('Link opening denied by user'),
    });
    expect(asked).toEqual(['message Looks good', 'link https://x.test/']);
    await app.close();
  });

  it('sends a host context change made before the view initialized once it has', async () => {
    const { host, app, contexts, connect } = await sdkView();
    host.updateHostContext({ theme: 'light' });
    await connect();
    await expect.poll(() => contexts).toEqual([{ theme: 'light' }]);
    host.updateHostContext({ theme: 'light' });
    host.updateHostContext({ theme: 'dark' });
    await expect.poll(() => contexts.length).toBe(2);
    expect(contexts[1]).toEqual({ theme: 'dark' });
    await app.close();
  });

  it('waits for the view to answer its teardown', async () => {
    const { host, app, connect } = await sdkView();
    let asked = 0;
    let answer: () => void = () => undefined;
    app.onteardown = () =>
      new Promise((resolve) => {
        asked++;
        answer = () => resolve({});
      });
    await connect();
    let finished = false;
    const done = host.teardown(5000).then(() => {
      finished = true;
    });
    await expect.poll(() => asked).toBe(1);
    expect(finished).toBe(false);
    answer();
    await done;
    expect(finished).toBe(true);
  });
});

describe('AppHost with a hand-written view (raw JSON-RPC)', () => {
  it('answers the proxy with the resource', async () => {
    const { notify, next } = await rawView();
    await notify('ui/notifications/sandbox-proxy-ready');
    expect(await next((m) => m.method === 'ui/notifications/sandbox-resource-ready')).toEqual({
      jsonrpc: '2.0',
      method: 'ui/notifications/sandbox-resource-ready',
      params: { html: '<p>view</p>', csp: { connectDomains: ['https://api.test'] } },
    });
  });

  it('holds notifications until the view has initialized', async () => {
    const { host, received, request, notify, next } = await rawView();
    host.sendToolInput({ a: 1 });
    host.sendToolResult({ content: [] });
    const answer = await request('ui/initialize', {
      protocolVersion: '2026-01-26',
      appInfo: { name: 'raw', version: '1' },
      appCapabilities: {},
    });
    expect(answer.result).toMatchObject({
      protocolVersion: '2026-01-26',
      hostInfo: { name: 'Ferry', version: '9.9.9' },
      hostContext: HOST_CONTEXT,
    });
    expect(received.filter((m) => m.method)).toEqual([]);
    await notify('ui/notifications/initialized');
    await next((m) => m.method === 'ui/notifications/tool-result');
    expect(received.filter((m) => m.method).map((m) => [m.method, m.params])).toEqual([
      ['ui/notifications/tool-input', { arguments: { a: 1 } }],
      ['ui/notifications/tool-result', { content: [] }],
    ]);
  });

  it('answers errors with their codes: refused tools, bad arguments, unknown methods', async () => {
    const calls: string[] = [];
    const { initialize, request } = await rawView({
      callTool: async (name) => {
        calls.push(name);
        if (name === 'other') throw new AppRpcError(RPC.invalidParams, 'not a tool of this server');
        return { content: [{ type: 'text', text: 'ok' }] } satisfies CallToolResult;
      },
    });
    await initialize();
    expect(await request('tools/call', { name: 'mine', arguments: { x: 1 } })).toMatchObject({
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect(await request('tools/call', { name: 'other' })).toMatchObject({
      error: { code: -32602, message: 'not a tool of this server' },
    });
    // The SDK's own check of the spec's params refuses these before Ferry sees them (with
    // -32603 and the validation message, not -32602).
    for (const params of [{ name: 'mine', arguments: [1] }, { arguments: {} }]) {
      const refused = await request('tools/call', params);
      expect(refused).toMatchObject({
        error: { code: -32603, message: expect.stringContaining('invalid_type') },
      });
    }
    expect(calls).toEqual(['mine', 'other']);
    expect(await request('resources/read', { uri: 'ui://x' })).toMatchObject({ error: { code: -32601 } });
    expect(await request('ui/download-file', { contents: [] })).toMatchObject({ error: { code: -32601 } });
    expect(await request('ping')).toMatchObject({ result: {} });
    expect(await request('ui/request-display-mode', { mode: 'fullscreen' })).toMatchObject({
      result: { mode: 'inline' },
    });
    expect(await request('ui/update-model-context', { content: [] })).toMatchObject({ result: {} });
  });

  it('refuses a message whose content is not a list of blocks, and one without text', async () => {
    const texts: string[] = [];
    const { initialize, request } = await rawView({ message: async (text) => void texts.push(text) });
    await initialize();
    const single = await request('ui/message', { role: 'user', content: { type: 'text', text: 'hi' } });
    expect(single).toMatchObject({ error: { code: -32602 } });
    const image = await request('ui/message', {
      role: 'user',
      content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
    });
    expect(image).toMatchObject({ error: { code: -32602, message: 'The message has no text' } });
    const two = await request('ui/message', {
      role: 'user',
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
    expect(two).toMatchObject({ result: {} });
    expect(texts).toEqual(['one\ntwo']);
  });

  it('passes valid sizes on and ignores malformed ones', async () => {
    const { initialize, notify, request, sizes } = await rawView();
    await initialize();
    await notify('ui/notifications/size-changed', { width: 300, height: 'tall' });
    await notify('ui/notifications/size-changed', { width: 300, height: 200 });
    await request('ping');
    expect(sizes).toEqual([{ width: 300, height: 200 }]);
  });

  it('tears down after the timeout when the view does not answer, then stops answering', async () => {
    const { host, initialize, next, received } = await rawView();
    await initialize();
    await expect.poll(() => host.initialized).toBe(true);
    const started = Date.now();
    await host.teardown(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(await next((m) => m.method === 'ui/resource-teardown')).toMatchObject({ params: {} });
    const count = received.length;
    host.sendToolResult({ content: [] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received.length).toBe(count);
  });
});

describe('SandboxProxyTransport', () => {
  function setup() {
    let listener: ((event: MessageEvent) => void) | undefined;
    const events = {
      addEventListener: (_type: string, fn: (event: MessageEvent) => void) => {
        listener = fn;
      },
      removeEventListener: () => {
        listener = undefined;
      },
    } as unknown as Pick<Window, 'addEventListener' | 'removeEventListener'>;
    const posted: [unknown, string][] = [];
    const frame = { postMessage: (message: unknown, origin: string) => posted.push([message, origin]) };
    const transport = new SandboxProxyTransport(frame as unknown as Window, 'http://sandbox.test:9', events);
    const got: unknown[] = [];
    transport.onmessage = (message) => got.push(message);
    const deliver = (source: unknown, origin: string, data: unknown) =>
      listener?.({ source, origin, data } as MessageEvent);
    return { transport, frame, posted, got, deliver, listening: () => listener !== undefined };
  }

  it("takes JSON-RPC from the proxy's window at its origin only, and posts to that origin", async () => {
    const { transport, frame, posted, got, deliver } = setup();
    await transport.start();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    deliver(frame, 'http://sandbox.test:9', ping);
    deliver(frame, 'http://evil.test', { jsonrpc: '2.0', id: 2, method: 'ping' });
    deliver({}, 'http://sandbox.test:9', { jsonrpc: '2.0', id: 3, method: 'ping' });
    deliver(frame, 'http://sandbox.test:9', { id: 4, method: 'ping' });
    deliver(frame, 'http://sandbox.test:9', 'ping');
    expect(got).toEqual([ping]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(posted).toEqual([[{ jsonrpc: '2.0', id: 1, result: {} }, 'http://sandbox.test:9']]);
  });

  it('stops listening when closed, and sends nothing after', async () => {
    const { transport, listening } = setup();
    let closed = 0;
    transport.onclose = () => closed++;
    await transport.start();
    expect(listening()).toBe(true);
    await transport.close();
    expect(listening()).toBe(false);
    expect(closed).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/not connected/);
  });
});
