import { lstat, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encodeDataUri, normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_COLORS, renderBarChart } from '../src/lib/bar-chart.js';
import { CHART_SIZE } from '../src/report.js';
import { decodePng } from './png-reader.js';

// CRLF line ends, a quoted comma, doubled quotes, a line break inside a field and markup to escape.
const CSV =
  'city,sales,units,note\r\nParis,120,3,"a, b"\r\nLyon,80.5,2,"say ""hi"""\r\nNice,-15,1,"multi\nline"\r\n<b>x</b>,0,4,plain\r\n';
const SALES = [120, 80.5, -15, 0];

type Artifact = { name: string; path: string; mime: string; size: number; [key: string]: unknown };

describe.each(['stdio', 'http'] as const)('report server over %s', (transport) => {
  const server = useExampleServer('report', transport);
  let csvPath: string;
  let user = 0;
  const nextUser = () => `user${++user}`;

  beforeAll(async () => {
    csvPath = join(server.root, 'sales.csv');
    await writeFile(csvPath, CSV);
  });

  it('declares filename, username and an optional title', async () => {
    const { tools } = await server.client.listTools();
    const tool = tools.find((t) => t.name === 'csv_report');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['filename', 'username', 'title']);
    expect(tool?.inputSchema.required).toEqual(['filename', 'username']);
  });

  it('writes report.html, chart.png and a deferred notes.md into the workspace', async () => {
    const username = nextUser();
    const workspace = join(server.root, username);
    const result = await server.client.callTool({
      name: 'csv_report',
      arguments: { filename: csvPath, username },
    });
    expect(result.isError).toBeFalsy();
    const payload = payloadOf(result);
    expect(payload.results).toEqual({
      summary: 'Report: sales.csv: 4 rows, 4 columns',
      rows: 4,
      columns: 4,
      numeric_columns: ['sales', 'units'],
      chart_column: 'sales',
    });
    expect(payload.display).toEqual({
      open_canvas: true,
      primary_file: 'report.html',
      storage_action: 'store',
    });

    const artifacts = payload.artifacts as Artifact[];
    expect(artifacts.map((a) => [a.name, a.mime, a.category])).toEqual([
      ['report.html', 'text/html', 'report'],
      ['chart.png', 'image/png', 'visualization'],
    ]);
    for (const artifact of artifacts) {
      expect(artifact.path).toBe(join(workspace, artifact.name));
      const info = await lstat(artifact.path);
      expect(info.isFile()).toBe(true);
      expect(info.size).toBe(artifact.size);
    }

    const png = await readFile(join(workspace, 'chart.png'));
    const image = decodePng(png);
    expect([image.width, image.height, image.colorType]).toEqual([CHART_SIZE.width, CHART_SIZE.height, 6]);
    expect(image.chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    const { bars } = renderBarChart(SALES, CHART_SIZE);
    const centre = (i: number) => {
      const bar = bars[i] as { x0: number; x1: number; y0: number; y1: number };
      return image.pixel(Math.floor((bar.x0 + bar.x1) / 2), Math.floor((bar.y0 + bar.y1) / 2));
    };
    expect(centre(0)).toEqual([...CHART_COLORS.positive, 255]);
    expect(centre(1)).toEqual([...CHART_COLORS.positive, 255]);
    expect(centre(2)).toEqual([...CHART_COLORS.negative, 255]);
    expect(image.pixel(1, 1)).toEqual([...CHART_COLORS.background, 255]);

    const html = await readFile(join(workspace, 'report.html'), 'utf8');
    expect(html).toContain('<table class="data">');
    expect(html).toContain('<tr><th>city</th><th>sales</th><th>units</th><th>note</th></tr>');
    expect(html).toContain('<td>Paris</td><td>120</td><td>3</td><td>a, b</td>');
    expect(html).toContain('<td>say &#34;hi&#34;</td>');
    expect(html).toContain('<td>&#60;b&#62;x&#60;/b&#62;</td>');
    expect(html).not.toContain('<b>');
    expect(html).toContain(
      '<tr><th>sales</th><td>4</td><td>-15</td><td>120</td><td>46.375</td><td>185.5</td></tr>',
    );
    // The chart is embedded, byte for byte, so the HTML works in a sandboxed iframe.
    expect(html).toContain(`src="data:image/png;base64,${png.toString('base64')}"`);

    const deferred = payload.deferred_artifacts as Artifact[];
    expect(deferred).toHaveLength(1);
    expect(deferred[0]).toMatchObject({
      name: 'notes.md',
      path: join(workspace, 'notes.md'),
      mime: 'text/markdown',
      reason: 'needs_editing',
      category: 'draft',
    });
    expect(await readFile(join(workspace, 'notes.md'), 'utf8')).toContain(
      '- sales: from -15 to 120, mean 46.38',
    );

    const normalized = normalizeToolResult(result, { workspaceRoot: workspace });
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.form).toBe('v2.1');
    expect(normalized.outcome.rejected).toEqual([]);
    expect(normalized.outcome.files.map((f) => f.source.kind)).toEqual(['path', 'path']);
    expect(normalized.outcome.deferred[0]?.deferred).toMatchObject({
      reason: 'needs_editing',
      expiresHours: 72,
    });
  });

  it('reads the CSV from a data URI (file mode data-uri) and uses its title', async () => {
    const username = nextUser();
    const filename = encodeDataUri({ mime: 'text/csv', name: 'inline.csv', data: CSV });
    const result = await server.client.callTool({
      name: 'csv_report',
      arguments: { filename, username, title: 'Inline' },
    });
    const payload = payloadOf(result);
    expect(payload.results).toMatchObject({ summary: 'Inline: 4 rows, 4 columns', rows: 4 });
    expect(payload.meta_data).toMatchObject({ source: 'inline.csv' });
  });

  it('downloads the CSV from a signed URL (file mode url)', async () => {
    const requests: string[] = [];
    const http = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(200, {
        'content-type': 'text/csv',
        'content-disposition': 'attachment; filename="remote.csv"',
      });
      res.end(CSV);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const username = nextUser();
      const url = `http://127.0.0.1:${port}/api/files/42/content?token=secret`;
      const payload = payloadOf(
        await server.client.callTool({ name: 'csv_report', arguments: { filename: url, username } }),
      );
      expect(payload.results).toMatchObject({ rows: 4 });
      expect(payload.meta_data).toMatchObject({ source: 'remote.csv' });
      expect(requests).toEqual(['/api/files/42/content?token=secret']);
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('answers a missing file with the E_FILE_NOT_FOUND envelope', async () => {
    const result = await server.client.callTool({
      name: 'csv_report',
      arguments: { filename: join(server.root, 'missing.csv'), username: nextUser() },
    });
    expect(result.isError).toBe(true);
    expect(payloadOf(result).meta_data).toMatchObject({ is_error: true, error_code: 'E_FILE_NOT_FOUND' });
  });

  it('answers an empty CSV and a username that is not a path component with E_INVALID_INPUT', async () => {
    const empty = join(server.root, 'empty.csv');
    await writeFile(empty, '');
    const noHeader = await server.client.callTool({
      name: 'csv_report',
      arguments: { filename: empty, username: nextUser() },
    });
    expect(payloadOf(noHeader).meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
    const badUser = await server.client.callTool({
      name: 'csv_report',
      arguments: { filename: csvPath, username: '../x' },
    });
    expect(badUser.isError).toBe(true);
    expect(payloadOf(badUser).meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
    await expect(lstat(join(server.root, '..', 'x'))).rejects.toThrow();
  });
});
