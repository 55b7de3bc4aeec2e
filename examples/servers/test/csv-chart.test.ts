import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MCP_APP_MIME_TYPE, normalizeToolResult, readToolUi } from '@ferry/contract';
import { png } from '@ferry/test-helpers/build-images';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_ROW_LIMIT, CSV_CHART_VIEW_URI, pngName } from '../src/csv-chart.js';
import { CSV_CHART_VIEW_SCRIPT, inlineExtApps } from '../src/lib/csv-chart-view.js';

const EXT_APPS_BUNDLE = readFileSync(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps'),
  'utf8',
);

const CSV = 'month,sales,units,note\nJan,120,3,a\nFeb,80.5,,b\nMar,-15,1,"c, d"\n';

describe.each(['stdio', 'http'] as const)('csv-chart server over %s', (transport) => {
  const server = useExampleServer('csv-chart', transport);
  let csvPath: string;
  let user = 0;
  const nextUser = () => `user${++user}`;

  beforeAll(async () => {
    csvPath = join(server.root, 'sales.csv');
    await writeFile(csvPath, CSV);
  });

  it('links show_csv_chart to its view and keeps save_chart_png for the view alone', async () => {
    const { tools } = await server.client.listTools();
    const show = tools.find((t) => t.name === 'show_csv_chart');
    const save = tools.find((t) => t.name === 'save_chart_png');
    // ext-apps' registerAppTool adds the legacy flat key beside `ui` for older hosts.
    expect(show?._meta).toEqual({
      ui: { resourceUri: CSV_CHART_VIEW_URI, visibility: ['model', 'app'] },
      'ui/resourceUri': CSV_CHART_VIEW_URI,
    });
    expect(readToolUi(show?._meta)).toEqual({
      resourceUri: CSV_CHART_VIEW_URI,
      visibility: ['model', 'app'],
    });
    expect(readToolUi(save?._meta)).toEqual({ visibility: ['app'] });
    expect(Object.keys(show?.inputSchema.properties ?? {})).toEqual(['filename']);
    expect(save?.inputSchema.required).toEqual(['png_base64', 'name', 'username']);
  });

  it('serves its view as one self-contained MCP App document with no external domains', async () => {
    const { resources } = await server.client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: CSV_CHART_VIEW_URI, mimeType: MCP_APP_MIME_TYPE }),
    ]);
    const read = await server.client.readResource({ uri: CSV_CHART_VIEW_URI });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta: unknown };
    expect(content.uri).toBe(CSV_CHART_VIEW_URI);
    expect(content.mimeType).toBe(MCP_APP_MIME_TYPE);
    expect(content._meta).toEqual({
      ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
    });
    const html = content.text;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    // One module script: ext-apps' App SDK as shipped in node_modules, then the view's code.
    const open = '<script type="module">\n';
    expect(html.split('<script').length - 1).toBe(1);
    const script = html.slice(html.indexOf(open) + open.length, html.lastIndexOf('</script>'));
    expect(script).toBe(inlineExtApps(EXT_APPS_BUNDLE) + CSV_CHART_VIEW_SCRIPT);
    expect(CSV_CHART_VIEW_SCRIPT).toContain('new App(');
    expect(CSV_CHART_VIEW_SCRIPT).toContain("name: 'save_chart_png'");
    // Nothing is fetched: no src/href to anywhere in the document, no network API in the view's
    // code or the SDK (the SDK's only URLs are JSON Schema ids, strings it never loads).
    const markup = html.replace(script, '');
    expect(markup).not.toMatch(/\s(src|href)=/);
    expect(markup).not.toMatch(/https?:\/\//);
    expect(CSV_CHART_VIEW_SCRIPT).not.toMatch(/https?:\/\//);
    expect(script).not.toMatch(/\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts)\s*\(/);
    // The script parses, and the SDK part gives the view the App class.
    expect(() => new Function(script)).not.toThrow();
    const sdk = new Function(`${inlineExtApps(EXT_APPS_BUNDLE)}\nreturn __extApps;`)() as Record<
      string,
      unknown
    >;
    expect(Object.keys(sdk)).toEqual(['App', 'applyDocumentTheme']);
    expect(typeof sdk.App).toBe('function');
  });

  it('returns the table for the view and a short summary for the model', async () => {
    const result = await server.client.callTool({ name: 'show_csv_chart', arguments: { filename: csvPath } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      results: {
        summary: 'sales.csv: 3 rows, 4 columns; numeric: sales, units',
        rows: 3,
        columns: 4,
        numeric_columns: ['sales', 'units'],
      },
      source: 'sales.csv',
      columns: [
        { name: 'month', numeric: false },
        { name: 'sales', numeric: true },
        { name: 'units', numeric: true },
        { name: 'note', numeric: false },
      ],
      rows: [
        ['Jan', 120, 3, 'a'],
        ['Feb', 80.5, null, 'b'],
        ['Mar', -15, 1, 'c, d'],
      ],
      total_rows: 3,
      truncated: false,
    });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'sales.csv: 3 rows, 4 columns; numeric: sales, units. The chart is shown to the user.',
      },
    ]);
    // What Ferry's model reads is the summary, not the rows.
    const normalized = normalizeToolResult(result);
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.results).toEqual({
      summary: 'sales.csv: 3 rows, 4 columns; numeric: sales, units',
      rows: 3,
      columns: 4,
      numeric_columns: ['sales', 'units'],
    });
  });

  it(`hands the view at most ${CHART_ROW_LIMIT} rows and says so`, async () => {
    const big = join(server.root, 'big.csv');
    const lines = ['i,v'];
    for (let i = 0; i < CHART_ROW_LIMIT + 7; i++) lines.push(`${i},${i * 2}`);
    await writeFile(big, `${lines.join('\n')}\n`);
    const result = await server.client.callTool({ name: 'show_csv_chart', arguments: { filename: big } });
    const data = result.structuredContent as { rows: unknown[][]; total_rows: number; truncated: boolean };
    expect(data.rows).toHaveLength(CHART_ROW_LIMIT);
    expect(data.rows.at(-1)).toEqual([CHART_ROW_LIMIT - 1, (CHART_ROW_LIMIT - 1) * 2]);
    expect([data.total_rows, data.truncated]).toEqual([CHART_ROW_LIMIT + 7, true]);
  });

  it('save_chart_png writes the exact PNG bytes into the workspace as a v2.1 artifact', async () => {
    const username = nextUser();
    const bytes = png(3, 2);
    const result = await server.client.callTool({
      name: 'save_chart_png',
      arguments: { png_base64: bytes.toString('base64'), name: '../sales chart', username },
    });
    expect(result.isError).toBeFalsy();
    const payload = payloadOf(result);
    expect(payload.results).toEqual({
      saved: 'sales chart.png',
      bytes: bytes.length,
      summary: 'Saved sales chart.png to your files.',
    });
    const path = join(server.root, username, 'sales chart.png');
    expect(payload.artifacts).toEqual([
      {
        name: 'sales chart.png',
        path,
        mime: 'image/png',
        size: bytes.length,
        description: 'Chart exported from the CSV chart view',
        category: 'visualization',
      },
    ]);
    expect((await readFile(path)).equals(bytes)).toBe(true);
  });

  it('save_chart_png refuses bytes that are not a PNG', async () => {
    const result = await server.client.callTool({
      name: 'save_chart_png',
      arguments: { png_base64: Buffer.from('GIF89a').toString('base64'), name: 'x', username: nextUser() },
    });
    expect(result.isError).toBe(true);
    expect(payloadOf(result).meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
  });
});

describe('inlineExtApps', () => {
  it("turns the SDK's closing export list into the names the view uses", () => {
    const inlined = inlineExtApps(
      'var a=1;function b(){}export{b as App,a as applyDocumentTheme,a as Other};\n',
    );
    expect(inlined).toBe('var a=1;function b(){}\nconst __extApps={App:b,applyDocumentTheme:a};\n');
  });

  it('refuses a bundle it cannot inline safely', () => {
    expect(() => inlineExtApps('var a=1;')).toThrow(/no closing export list/);
    expect(() => inlineExtApps('export{a as App};var a=1;export{a as applyDocumentTheme};')).toThrow(
      /more than one/,
    );
    expect(() => inlineExtApps('var a="</script>";export{a as App,a as applyDocumentTheme};')).toThrow(
      /end the inline <script>/,
    );
    expect(() => inlineExtApps('var a=1;export{a as App};')).toThrow(/does not export applyDocumentTheme/);
    expect(() => inlineExtApps('var a=1;export{a as App,a-1 as applyDocumentTheme};')).toThrow(
      /unexpected export/,
    );
  });
});

it('pngName keeps a plain file name ending in .png', () => {
  expect(pngName('sales-chart.png')).toBe('sales-chart.png');
  expect(pngName('a/b\\c')).toBe('c.png');
  expect(pngName('..')).toBe('chart.png');
  expect(pngName('x<y>')).toBe('x_y_.png');
});
