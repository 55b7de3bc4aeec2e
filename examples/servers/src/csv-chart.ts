// Convention: MCP Apps (SEP-1865, the ext-apps spec). `show_csv_chart` reads a CSV from the
// user's files (the host injects it by `filename`) and returns its table as structuredContent for
// the tool's view, `ui://csv-chart/app.html`, plus a short summary for the model. The view draws
// the numeric columns and saves the drawing through `save_chart_png`, a tool only the view may
// call (visibility ["app"]): its PNG lands in My Files as a v2.1 path artifact.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/csv-chart.ts [--http <port>]
import { FerryError } from '@ferry/contract';
import {
  isMainModule,
  readInjectedFile,
  runServer,
  v21Result,
  withErrorEnvelope,
  workspace,
} from '@ferry/server-kit';
import {
  RESOURCE_MIME_TYPE,
  registerAppResource,
  registerAppTool,
} from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CSV_CHART_VIEW_URI, csvChartViewHtml } from './lib/csv-chart-view.js';
import { readCsvTable } from './lib/csv-table.js';
import { parseNumber } from './lib/table-stats.js';

export { CSV_CHART_VIEW_URI };
/** Rows handed to the view; the summary still counts every row. */
export const CHART_ROW_LIMIT = 5000;
/** Largest PNG the view may save (decoded bytes). */
export const MAX_PNG_BYTES = 16 * 1024 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export const showCsvChartInput = z.object({
  filename: z.string().describe("The CSV file: a name from the user's files (the host passes it as a path)"),
});

export const saveChartPngInput = z.object({
  png_base64: z
    .string()
    .max(Math.ceil(MAX_PNG_BYTES / 3) * 4)
    .describe('The chart as a base64 PNG (what the view drew)'),
  name: z.string().min(1).max(120).describe('File name in My Files; ".png" is added when missing'),
  username: z
    .string()
    .describe('Injected by the host: the authenticated user; the PNG goes to /tmp/{username}/'),
});

export function createCsvChartServer(): McpServer {
  // Built (and the SDK read) now: a server that cannot serve its view does not start.
  const viewHtml = csvChartViewHtml();
  const server = new McpServer({ name: 'ferry-example-csv-chart', version: '0.1.0' });

  // ext-apps' helpers: the tool's _meta.ui (plus the legacy flat "ui/resourceUri" key older hosts
  // read) and the resource's MIME type, text/html;profile=mcp-app.
  registerAppTool(
    server,
    'show_csv_chart',
    {
      title: 'CSV chart',
      description:
        "Opens an interactive chart of a CSV file's numeric columns (one line per column) in the canvas; the user can export it as a PNG into their files.",
      inputSchema: showCsvChartInput,
      _meta: { ui: { resourceUri: CSV_CHART_VIEW_URI, visibility: ['model', 'app'] } },
    },
    withErrorEnvelope(async ({ filename }) => {
      const input = await readInjectedFile(filename);
      try {
        const table = await readTable(input.path, input.name);
        const columns = table.stats.columns().map(({ name, numeric }) => ({ name, numeric }));
        const numeric = columns.filter((column) => column.numeric).map((column) => column.name);
        const summary = `${input.name}: ${table.stats.rows} rows, ${columns.length} columns; numeric: ${numeric.join(', ') || 'none'}`;
        const truncated = table.stats.rows > table.rows.length;
        return {
          content: [
            {
              type: 'text',
              text: `${summary}. The chart is shown to the user${truncated ? ` (first ${table.rows.length} rows)` : ''}.`,
            },
          ],
          // `results` is what the model reads (Ferry's v2.1 reading of structuredContent); the
          // view reads `columns` and `rows`.
          structuredContent: {
            results: { summary, rows: table.stats.rows, columns: columns.length, numeric_columns: numeric },
            source: input.name,
            columns,
            rows: table.rows,
            total_rows: table.stats.rows,
            truncated,
          },
        };
      } finally {
        await input.dispose();
      }
    }),
  );

  registerAppTool(
    server,
    'save_chart_png',
    {
      title: 'Save chart as PNG',
      description: "Saves the chart the view drew as a PNG in the user's files (called by the chart view).",
      inputSchema: saveChartPngInput,
      _meta: { ui: { visibility: ['app'] } },
    },
    withErrorEnvelope(async ({ png_base64, name, username }) => {
      const bytes = Buffer.from(png_base64, 'base64');
      if (bytes.length > MAX_PNG_BYTES) {
        throw new FerryError(
          'E_FILE_TOO_LARGE',
          `The PNG is ${bytes.length} bytes; at most ${MAX_PNG_BYTES}`,
        );
      }
      if (
        bytes.length < PNG_SIGNATURE.length ||
        !bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)
      ) {
        throw new FerryError('E_INVALID_INPUT', 'png_base64 is not a base64 PNG image', {
          field: 'png_base64',
        });
      }
      const fileName = pngName(name);
      const artifact = await workspace(username).writeArtifact(fileName, bytes, {
        mime: 'image/png',
        description: 'Chart exported from the CSV chart view',
        category: 'visualization',
      });
      return v21Result({
        results: { saved: fileName, bytes: bytes.length, summary: `Saved ${fileName} to your files.` },
        artifacts: [artifact],
      });
    }),
  );

  registerAppResource(
    server,
    'csv-chart-view',
    CSV_CHART_VIEW_URI,
    { title: 'CSV chart view', description: 'Interactive chart of a CSV table (MCP Apps view)' },
    async () => ({
      contents: [
        {
          uri: CSV_CHART_VIEW_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: viewHtml,
          // Nothing outside the document: no fetch, no external script, image or frame.
          _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
        },
      ],
    }),
  );
  return server;
}

/** A plain file name ending in .png (the view's name is a suggestion, not a path). */
export function pngName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const safe =
    base
      .replace(/[^A-Za-z0-9._ -]+/g, '_')
      .replace(/^[.\s]+/, '')
      .trim()
      .slice(0, 100) || 'chart';
  return /\.png$/i.test(safe) ? safe : `${safe}.png`;
}

async function readTable(path: string, name: string) {
  const { header, stats, rows: raw } = await readCsvTable(path, name, CHART_ROW_LIMIT);
  const numeric = stats.columns().map((column) => column.numeric);
  // Numbers as numbers in numeric columns (an empty cell is null); text stays text.
  const rows = raw.map((fields) =>
    header.map((_, i) => {
      const text = (fields[i] ?? '').trim();
      if (!numeric[i]) return text;
      return text === '' ? null : (parseNumber(text) ?? null);
    }),
  );
  return { header, stats, rows };
}

if (isMainModule(import.meta.url)) await runServer(createCsvChartServer, { name: 'csv-chart' });
