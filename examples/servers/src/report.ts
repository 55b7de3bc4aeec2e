// Convention: tool contract v2.1 with path artifacts (§6), a deferred artifact (§7) and display
// hints (§8). `csv_report` reads a CSV (a path in file mode `path`; a signed URL or data URI works
// too), writes report.html and chart.png into /tmp/{username}/ and a draft notes.md the user is
// meant to edit, and returns their paths: the host decides base64 vs object storage.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/report.ts [--http <port>]
import {
  isMainModule,
  type PathArtifact,
  readInjectedFile,
  runServer,
  v21Result,
  withErrorEnvelope,
  workspace,
} from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { renderBarChart } from './lib/bar-chart.js';
import { readCsvTable } from './lib/csv-table.js';
import { encodePng } from './lib/png.js';
import { renderReportHtml } from './lib/report-html.js';
import { parseNumber, type TableStats } from './lib/table-stats.js';

/** Rows shown in the HTML table; statistics still cover every row. */
export const TABLE_ROW_LIMIT = 200;
/** Bars in the chart: the first rows of the first numeric column. */
export const CHART_BAR_LIMIT = 50;
export const CHART_SIZE = { width: 640, height: 360 } as const;

export const csvReportInput = z.object({
  filename: z.string().describe("The CSV file: a name from the user's files (the host passes it as a path)"),
  username: z
    .string()
    .describe('Injected by the host: the authenticated user; outputs go to /tmp/{username}/'),
  title: z.string().optional().describe('Report title. Defaults to "Report: <file name>"'),
});

export function createReportServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-report', version: '0.1.0' });
  server.registerTool(
    'csv_report',
    {
      title: 'CSV report',
      description:
        "Reads a CSV file and writes report.html (data table and summary statistics) and chart.png (bar chart of the first numeric column) into the user's files, plus notes.md, a draft to edit.",
      inputSchema: csvReportInput,
    },
    withErrorEnvelope(async ({ filename, username, title }) => {
      const started = Date.now();
      const files = workspace(username);
      const input = await readInjectedFile(filename);
      try {
        const table = await readCsvTable(input.path, input.name, TABLE_ROW_LIMIT);
        const reportTitle = title ?? `Report: ${input.name}`;
        const numeric = table.stats.firstNumericColumn();
        const columns = table.stats.columns();
        const artifacts: PathArtifact[] = [];
        let chart: { pngBase64: string; column: string; bars: number } | undefined;
        if (numeric !== undefined) {
          const values = table.rows
            .slice(0, CHART_BAR_LIMIT)
            .map((row) => parseNumber(row[numeric] ?? '') ?? 0);
          const png = encodePng(renderBarChart(values, CHART_SIZE).image);
          const column = table.header[numeric] as string;
          chart = { pngBase64: png.toString('base64'), column, bars: values.length };
          artifacts.push(
            await files.writeArtifact('chart.png', png, {
              mime: 'image/png',
              description: `Bar chart of ${column} (first ${values.length} rows)`,
              category: 'visualization',
            }),
          );
        }
        const html = renderReportHtml({
          title: reportTitle,
          source: input.name,
          header: table.header,
          rows: table.rows,
          totalRows: table.stats.rows,
          stats: columns,
          ...(chart ? { chart } : {}),
        });
        artifacts.unshift(
          await files.writeArtifact('report.html', html, {
            mime: 'text/html',
            description: `${reportTitle}: ${table.stats.rows} rows, ${table.header.length} columns`,
            category: 'report',
            autoOpen: true,
          }),
        );
        const notes = await files.deferredArtifact('notes.md', draftNotes(reportTitle, input.name, columns), {
          mime: 'text/markdown',
          description: 'Draft notes on the report, to complete',
          reason: 'needs_editing',
          nextActions: ['Write your conclusions under "Findings"', 'Share the report with your team'],
          category: 'draft',
        });
        return v21Result({
          results: {
            summary: `${reportTitle}: ${table.stats.rows} rows, ${table.header.length} columns`,
            rows: table.stats.rows,
            columns: table.header.length,
            numeric_columns: columns.filter((column) => column.numeric).map((column) => column.name),
            chart_column: chart?.column ?? null,
          },
          metaData: {
            source: input.name,
            elapsed_ms: Date.now() - started,
            table_rows_shown: table.rows.length,
            chart_bars: chart?.bars ?? 0,
          },
          retryable: true,
          artifacts,
          deferred: [notes],
          display: { open_canvas: true, primary_file: 'report.html', storage_action: 'store' },
        });
      } finally {
        await input.dispose();
      }
    }),
  );
  return server;
}

function draftNotes(title: string, source: string, columns: ReturnType<TableStats['columns']>): string {
  const facts = columns
    .filter((column) => column.numeric)
    .map(
      (column) => `- ${column.name}: from ${column.min} to ${column.max}, mean ${column.mean?.toFixed(2)}`,
    );
  return [
    `# ${title}`,
    '',
    `Source: ${source}`,
    '',
    '## Key figures',
    '',
    ...(facts.length > 0 ? facts : ['- (no numeric columns)']),
    '',
    '## Findings',
    '',
    '_To be written._',
    '',
  ].join('\n');
}

if (isMainModule(import.meta.url)) await runServer(createReportServer, { name: 'report' });
