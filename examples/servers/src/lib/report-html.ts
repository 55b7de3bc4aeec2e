// The HTML of the CSV report: summary statistics, the chart and the data table. Self-contained
// (the chart is an inline data URI and the CSS is inline) because hosts show HTML in a sandboxed
// iframe where relative links lead nowhere, and script-free because they do not run scripts.
import type { ColumnStats } from './table-stats.js';

export interface ReportHtmlInput {
  title: string;
  /** The input file's name, shown under the title. */
  source: string;
  header: readonly string[];
  /** The rows shown in the table (possibly fewer than totalRows). */
  rows: readonly (readonly string[])[];
  totalRows: number;
  stats: readonly ColumnStats[];
  chart?: { pngBase64: string; column: string; bars: number };
}

export function renderReportHtml(input: ReportHtmlInput): string {
  const statsRows = input.stats
    .map((column) => {
      const cells = column.numeric
        ? [column.min, column.max, column.mean, column.sum].map((value) => `<td>${formatNumber(value)}</td>`)
        : ['<td colspan="4">text</td>'];
      return `<tr><th>${escapeHtml(column.name)}</th><td>${column.count}</td>${cells.join('')}</tr>`;
    })
    .join('\n');
  const dataRows = input.rows
    .map((row) => `<tr>${input.header.map((_, i) => `<td>${escapeHtml(row[i] ?? '')}</td>`).join('')}</tr>`)
    .join('\n');
  const shown =
    input.rows.length < input.totalRows
      ? `<p class="note">Showing the first ${input.rows.length} of ${input.totalRows} rows.</p>`
      : '';
  const chart = input.chart
    ? `<h2>${escapeHtml(input.chart.column)}</h2>
<img alt="Bar chart of ${escapeHtml(input.chart.column)} (${input.chart.bars} rows)" src="data:image/png;base64,${input.chart.pngBase64}">`
    : '<p class="note">No numeric column to chart.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(input.title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #111827; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d1d5db; padding: 0.25rem 0.5rem; text-align: left; }
thead th { background: #f3f4f6; }
.note { color: #6b7280; }
</style>
</head>
<body>
<h1>${escapeHtml(input.title)}</h1>
<p>${escapeHtml(input.source)}: ${input.totalRows} rows, ${input.header.length} columns.</p>
<h2>Summary</h2>
<table class="stats">
<thead><tr><th>column</th><th>values</th><th>min</th><th>max</th><th>mean</th><th>sum</th></tr></thead>
<tbody>
${statsRows}
</tbody>
</table>
${chart}
<h2>Data</h2>
<table class="data">
<thead><tr>${input.header.map((name) => `<th>${escapeHtml(name)}</th>`).join('')}</tr></thead>
<tbody>
${dataRows}
</tbody>
</table>
${shown}
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function formatNumber(value: number | undefined): string {
  if (value === undefined) return '';
  return Number.isInteger(value) ? String(value) : value.toFixed(4).replace(/0+$/, '');
}
