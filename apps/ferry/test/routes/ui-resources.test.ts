// MCP Apps (SEP-1865) over real HTTP: the tool listing's `ui`, GET /api/servers/:server/ui-resource
// against the csv-chart example and a Streamable HTTP test server (declared URIs only, the MCP
// Apps type only, a size cap, `_meta.ui` filtered, a cache that a tools/list_changed drops), the
// call response's `mcpResult`, and the example's app-only save tool through POST /api/calls.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MCP_APP_MIME_TYPE } from '@ferry/contract';
import { png } from '@ferry/test-helpers/build-images';
import { mcpSessions } from '@ferry/test-helpers/mcp-sessions';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ALICE,
  BOB,
  exampleServers,
  http,
  PROXY_AUTH,
  settledCall,
  startCallOk,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';

const VIEW_HTML = '<!DOCTYPE html><html><body><p>main view</p></body></html>';
const BIG_BYTES = 5 * 1024 * 1024 + 1;

/** The test server's views by URI: what resources/read answers for each. */
const VIEWS: Record<string, { mimeType: string; text?: string; blob?: string; _meta?: unknown }> = {
  'ui://views/main.html': { mimeType: MCP_APP_MIME_TYPE, text: VIEW_HTML },
  'ui://views/flat.html': { mimeType: MCP_APP_MIME_TYPE, text: '<p>flat</p>' },
  'ui://views/plain.html': { mimeType: 'text/html', text: '<p>plain</p>' },
  'ui://views/big.html': { mimeType: MCP_APP_MIME_TYPE, text: 'x'.repeat(BIG_BYTES) },
  'ui://views/blob.html': {
    mimeType: 'text/html; profile="mcp-app"',
    blob: Buffer.from('<p>blob é</p>').toString('base64'),
    _meta: {
      ui: {
        csp: {
          resourceDomains: ['https://cdn.example.com'],
          connectDomains: 'https://evil.example',
          extra: 1,
        },
        permissions: { camera: { why: 'x' }, teleport: {} },
        prefersBorder: false,
        domain: 42,
        script: 'alert(1)',
      },
    },
  },
  // Served, but declared by no tool.
  'ui://views/undeclared.html': { mimeType: MCP_APP_MIME_TYPE, text: '<p>secret</p>' },
};

interface ViewsServer {
  url: string;
  /** resources/read calls per URI. */
  reads: Map<string, number>;
  /** The serverInfo version sessions opened from now on report. */
  setVersion(version: string): void;
  close(): Promise<void>;
}

async function startViewsServer(): Promise<ViewsServer> {
  const reads = new Map<string, number>();
  const state = { version: '1.0.0' };
  const factory = () => {
    const server = new McpServer({ name: 'views-test', version: state.version });
    const tool = (name: string, meta: Record<string, unknown>) =>
      server.registerTool(name, { description: name, _meta: meta }, async () => ({
        content: [{ type: 'text', text: name }],
      }));
    tool('open_view', { ui: { resourceUri: 'ui://views/main.html' } });
    tool('flat_view', { 'ui/resourceUri': 'ui://views/flat.html' });
    tool('plain_view', { ui: { resourceUri: 'ui://views/plain.html', visibility: ['app'] } });
    tool('big_view', { ui: { resourceUri: 'ui://views/big.html' } });
    tool('blob_view', { ui: { resourceUri: 'ui://views/blob.html', visibility: ['model', 'dance'] } });
    tool('not_a_view', { ui: { resourceUri: 'https://example.com/view.html' } });
    server.registerTool(
      'bump',
      { description: 'Adds a tool (tools/list_changed)', inputSchema: z.object({ name: z.string() }) },
      async ({ name }) => {
        server.registerTool(name, { description: 'added' }, async () => ({ content: [] }));
        return { content: [{ type: 'text', text: 'bumped' }] };
      },
    );
    server.registerTool(
      'add_resource',
      {
        description: 'Adds a resource (resources/list_changed)',
        inputSchema: z.object({ name: z.string() }),
      },
      async ({ name }) => {
        server.registerResource(name, `test://${name}`, {}, async (uri) => ({
          contents: [{ uri: uri.href, text: name }],
        }));
        return { content: [{ type: 'text', text: 'added' }] };
      },
    );
    for (const [uri, view] of Object.entries(VIEWS)) {
      server.registerResource(uri, uri, { mimeType: view.mimeType }, async () => {
        reads.set(uri, (reads.get(uri) ?? 0) + 1);
        const { text, blob, _meta } = view;
        const base = {
          uri,
          mimeType: view.mimeType,
          ...(_meta ? { _meta: _meta as Record<string, unknown> } : {}),
        };
        return { contents: [text !== undefined ? { ...base, text } : { ...base, blob: blob as string }] };
      });
    }
    return server;
  };
  const mcp = mcpSessions({ jsonResponse: false });
  const server = createServer((req, res) => {
    void mcp.handle(req, res, factory);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    reads,
    setVersion: (version) => {
      state.version = version;
    },
    close: async () => {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let views: ViewsServer;
let t: TestApp;
beforeAll(async () => {
  views = await startViewsServer();
  const examples = await exampleServers();
  t = await startTestApp({
    app: { auth: PROXY_AUTH },
    servers: {
      'csv-chart': examples['csv-chart'],
      report: examples.report,
      views: { transport: 'http', url: views.url },
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await views?.close();
});

const viewPath = (server: string, uri: string) =>
  `/api/servers/${server}/ui-resource?uri=${encodeURIComponent(uri)}`;

async function getView(server: string, uri: string, headers: Record<string, string> = ALICE) {
  return http(t.url, viewPath(server, uri), { headers });
}

interface ErrorJson {
  results: { error: string };
  meta_data: { error_code: string; details: Record<string, unknown> };
}

function startCall(body: unknown, headers: Record<string, string> = ALICE): Promise<string> {
  return startCallOk(t.url, body, headers);
}

interface CallJson {
  status: string;
  response: {
    status: string;
    mcpResult?: Record<string, unknown>;
    mcpResultOmitted?: true;
    forUi: { files: { id: string; name: string; mime: string; size: number }[] };
  };
}

describe('the tool listing', () => {
  it("shows each tool's view and visibility from its _meta", async () => {
    const chart = await http(t.url, '/api/servers/csv-chart/tools', { headers: ALICE });
    expect(chart.status).toBe(200);
    const byName = new Map(
      chart.json<{ items: { name: string; ui?: unknown }[] }>().items.map((i) => [i.name, i]),
    );
    expect(byName.get('show_csv_chart')?.ui).toEqual({
      resourceUri: 'ui://csv-chart/app.html',
      visibility: ['model', 'app'],
    });
    expect(byName.get('save_chart_png')?.ui).toEqual({ visibility: ['app'] });

    const listed = await http(t.url, '/api/servers/views/tools', { headers: ALICE });
    const ui = Object.fromEntries(
      listed.json<{ items: { name: string; ui?: unknown }[] }>().items.map((i) => [i.name, i.ui ?? null]),
    );
    expect(ui).toEqual({
      open_view: { resourceUri: 'ui://views/main.html', visibility: ['model', 'app'] },
      // The deprecated flat key still counts.
      flat_view: { resourceUri: 'ui://views/flat.html', visibility: ['model', 'app'] },
      plain_view: { resourceUri: 'ui://views/plain.html', visibility: ['app'] },
      big_view: { resourceUri: 'ui://views/big.html', visibility: ['model', 'app'] },
      // Unknown visibility values are ignored.
      blob_view: { resourceUri: 'ui://views/blob.html', visibility: ['model'] },
      // Not a ui:// URI: no view, the visibility stays.
      not_a_view: { visibility: ['model', 'app'] },
      bump: null,
      add_resource: null,
    });
    // Nothing else of _meta reaches the client.
    expect(listed.text).not.toContain('ui/resourceUri');
  });
});

describe('GET /api/servers/:server/ui-resource', () => {
  it("answers the csv-chart example's view with its HTML and sandbox settings", async () => {
    const result = await getView('csv-chart', 'ui://csv-chart/app.html');
    expect(result.status, result.text).toBe(200);
    const body = result.json<{ uri: string; mimeType: string; html: string; meta: unknown }>();
    expect(Object.keys(body).sort()).toEqual(['html', 'meta', 'mimeType', 'uri']);
    expect(body.uri).toBe('ui://csv-chart/app.html');
    expect(body.mimeType).toBe(MCP_APP_MIME_TYPE);
    expect(body.html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(body.html).toContain("name: 'save_chart_png'");
    expect(body.meta).toEqual({ csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true });
    expect(result.headers['cache-control']).toBe('no-store');
  });

  it('answers a view declared through the deprecated flat key', async () => {
    const result = await getView('views', 'ui://views/flat.html');
    expect(result.status, result.text).toBe(200);
    expect(result.json()).toEqual({
      uri: 'ui://views/flat.html',
      mimeType: MCP_APP_MIME_TYPE,
      html: '<p>flat</p>',
      meta: {},
    });
  });

  it('decodes a blob view and keeps only the _meta.ui fields the spec defines, each checked', async () => {
    const result = await getView('views', 'ui://views/blob.html');
    expect(result.status, result.text).toBe(200);
    expect(result.json()).toEqual({
      uri: 'ui://views/blob.html',
      mimeType: MCP_APP_MIME_TYPE,
      html: '<p>blob é</p>',
      // connectDomains was not a list: the whole csp is dropped (no external origins at all).
      meta: { permissions: { camera: {} }, prefersBorder: false },
    });
  });

  it('refuses a URI no tool of the server declares, even one the server serves', async () => {
    const result = await getView('views', 'ui://views/undeclared.html');
    expect(result.status).toBe(404);
    const body = result.json<ErrorJson>();
    expect(body.meta_data.error_code).toBe('E_NOT_FOUND');
    expect(body.results.error).toContain('No tool of MCP server "views" declares the view');
    expect(views.reads.get('ui://views/undeclared.html')).toBeUndefined();
    // Another server's view is not this one's.
    expect((await getView('csv-chart', 'ui://views/main.html')).status).toBe(404);
  });

  it('refuses what is not a ui:// URI, an unknown server, and a missing uri', async () => {
    const notUi = await getView('views', 'https://example.com/view.html');
    expect(notUi.status).toBe(400);
    expect(notUi.json<ErrorJson>().meta_data.error_code).toBe('E_INVALID_INPUT');
    expect((await getView('nope', 'ui://views/main.html')).status).toBe(404);
    expect((await http(t.url, '/api/servers/views/ui-resource', { headers: ALICE })).status).toBe(400);
    expect((await http(t.url, viewPath('views', 'ui://views/main.html'))).status).toBe(401);
  });

  it('answers 502 when the view is not of the MCP Apps type', async () => {
    const result = await getView('views', 'ui://views/plain.html');
    expect(result.status).toBe(502);
    const body = result.json<ErrorJson>();
    expect(body.meta_data.error_code).toBe('E_TOOL_ERROR');
    expect(body.results.error).toBe(
      'The view "ui://views/plain.html" of MCP server "views" has the type "text/html"; an MCP App view must be text/html;profile=mcp-app',
    );
  });

  it('answers 502 for a view over 5 MiB', async () => {
    const result = await getView('views', 'ui://views/big.html');
    expect(result.status).toBe(502);
    const body = result.json<ErrorJson>();
    expect(body.meta_data.error_code).toBe('E_RESULT_TOO_LARGE');
    expect(body.results.error).toContain(`is ${BIG_BYTES} bytes; at most ${5 * 1024 * 1024} are accepted`);
  });

  it('reads a view once, then from the cache, until the server says its tools or resources changed', async () => {
    const uri = 'ui://views/main.html';
    const before = views.reads.get(uri) ?? 0;
    for (let i = 0; i < 3; i++) {
      const result = await getView('views', uri);
      expect(result.status).toBe(200);
      expect(result.json<{ html: string }>().html).toBe(VIEW_HTML);
    }
    expect(views.reads.get(uri)).toBe(before + 1);

    // The notification comes in the call's own stream, before its result: once the call has
    // settled, the cache has heard it.
    const callId = await startCall({ server: 'views', tool: 'bump', arguments: { name: 'added_1' } });
    expect((await settledCall<CallJson>(t.url, callId, ALICE)).status).toBe('finished');
    expect((await getView('views', uri)).status).toBe(200);
    expect(views.reads.get(uri)).toBe(before + 2);
    expect((await getView('views', uri)).status).toBe(200);
    expect(views.reads.get(uri)).toBe(before + 2);

    // So does a resources/list_changed.
    const added = await startCall({ server: 'views', tool: 'add_resource', arguments: { name: 'r1' } });
    expect((await settledCall<CallJson>(t.url, added, ALICE)).status).toBe('finished');
    expect((await getView('views', uri)).status).toBe(200);
    expect(views.reads.get(uri)).toBe(before + 3);

    // Another user is read for: a view is never served from one user's read to another.
    expect((await getView('views', uri, BOB)).status).toBe(200);
    expect(views.reads.get(uri)).toBe(before + 4);
  });

  it('keeps a view across a reconnect to the same server version, not to another', async () => {
    const uri = 'ui://views/flat.html';
    expect((await getView('views', uri)).status).toBe(200);
    const before = views.reads.get(uri) ?? 0;
    await t.host.pool.closeUser('alice');
    expect((await getView('views', uri)).status).toBe(200);
    expect(views.reads.get(uri)).toBe(before);

    views.setVersion('2.0.0');
    try {
      await t.host.pool.closeUser('alice');
      expect((await getView('views', uri)).status).toBe(200);
      expect(views.reads.get(uri)).toBe(before + 1);
    } finally {
      views.setVersion('1.0.0');
    }
  });

  it('does not cache a failure', async () => {
    const uri = 'ui://views/plain.html';
    const before = views.reads.get(uri) ?? 0;
    expect((await getView('views', uri)).status).toBe(502);
    expect((await getView('views', uri)).status).toBe(502);
    expect(views.reads.get(uri)).toBe(before + 2);
  });
});

describe('calls of MCP Apps tools', () => {
  const CSV = 'month,sales\nJan,120\nFeb,80.5\n';

  it("carry the server's CallToolResult as mcpResult; other tools' responses do not", async () => {
    await uploadOk(t.url, 'sales.csv', CSV, { ...ALICE, 'content-type': 'text/csv' });
    const callId = await startCall({
      server: 'csv-chart',
      tool: 'show_csv_chart',
      arguments: { filename: 'sales.csv' },
    });
    const call = await settledCall<CallJson>(t.url, callId, ALICE);
    expect(call.status).toBe('finished');
    expect(call.response.mcpResultOmitted).toBeUndefined();
    // As the server sent it, its SDK's _meta included.
    expect(call.response.mcpResult).toEqual({
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ferry-example-csv-chart', version: '0.1.0' } },
      content: [
        {
          type: 'text',
          text: 'sales.csv: 2 rows, 2 columns; numeric: sales. The chart is shown to the user.',
        },
      ],
      structuredContent: {
        results: {
          summary: 'sales.csv: 2 rows, 2 columns; numeric: sales',
          rows: 2,
          columns: 2,
          numeric_columns: ['sales'],
        },
        source: 'sales.csv',
        columns: [
          { name: 'month', numeric: false },
          { name: 'sales', numeric: true },
        ],
        rows: [
          ['Jan', 120],
          ['Feb', 80.5],
        ],
        total_rows: 2,
        truncated: false,
      },
    });

    const plain = await startCall({
      server: 'report',
      tool: 'csv_report',
      arguments: { filename: 'sales.csv' },
    });
    const report = await settledCall<CallJson>(t.url, plain, ALICE);
    expect(report.status).toBe('finished');
    expect(report.response).not.toHaveProperty('mcpResult');
    expect(report.response).not.toHaveProperty('mcpResultOmitted');
  });

  it('carry mcpResult for a plain tool of a server with views too (a view may call it)', async () => {
    const callId = await startCall({ server: 'views', tool: 'open_view', arguments: {} });
    const call = await settledCall<CallJson>(t.url, callId, ALICE);
    expect(call.response.mcpResult?.content).toEqual([{ type: 'text', text: 'open_view' }]);
    const plain = await startCall({ server: 'views', tool: 'bump', arguments: { name: 'added_2' } });
    const bumped = await settledCall<CallJson>(t.url, plain, ALICE);
    expect(bumped.response.mcpResult?.content).toEqual([{ type: 'text', text: 'bumped' }]);
  });

  it('save_chart_png (app-only) through POST /api/calls stores the exact PNG bytes in My Files', async () => {
    const bytes = png(5, 4);
    const callId = await startCall({
      server: 'csv-chart',
      tool: 'save_chart_png',
      arguments: { png_base64: bytes.toString('base64'), name: 'sales-chart.png' },
    });
    const call = await settledCall<CallJson>(t.url, callId, ALICE);
    expect(call.status, JSON.stringify(call)).toBe('finished');
    const files = call.response.forUi.files;
    expect(files.map((f) => [f.name, f.mime, f.size])).toEqual([
      ['sales-chart.png', 'image/png', bytes.length],
    ]);
    const content = await http(t.url, `/api/files/${files[0]?.id}/content`, { headers: ALICE });
    expect(content.status).toBe(200);
    expect(content.body.equals(bytes)).toBe(true);
    const structured = call.response.mcpResult?.structuredContent as { results: unknown } | undefined;
    expect(structured?.results).toEqual({
      saved: 'sales-chart.png',
      bytes: bytes.length,
      summary: 'Saved sales-chart.png to your files.',
    });
  });
});
