// The csv-chart server's MCP Apps view (SEP-1865): one self-contained HTML document, no network
// (its resource declares no CSP domains). Its script is ext-apps' App class
// (`@modelcontextprotocol/ext-apps/app-with-deps`, the SDK with its dependencies in one ES module),
// inlined into the document: a view cannot load it from elsewhere under its CSP. The App does the
// protocol (ui/initialize → initialized, size reports, the teardown answer); this view draws the
// numeric columns of the tool result's structuredContent on a <canvas>, and "Export PNG" asks the
// host to call the app-only tool save_chart_png, then says where the PNG went.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const CSV_CHART_VIEW_URI = 'ui://csv-chart/app.html';

/** The name the inlined SDK's exports are gathered under, for the view's script. */
const SDK_NAMESPACE = '__extApps';
/** What the view uses of the SDK. */
const SDK_EXPORTS = ['App', 'applyDocumentTheme'];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The SDK bundle as a classic part of the view's module script: its closing
 * `export{local as Name,…}` becomes `const __extApps={Name:local,…}`. Throws (at server start)
 * when the bundle no longer has that shape or holds what would end the inline <script>.
 */
export function inlineExtApps(bundle: string): string {
  const match = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(bundle);
  if (!match || match.index === undefined) throw new Error('ext-apps app-with-deps: no closing export list');
  const body = bundle.slice(0, match.index);
  if (/export\s*[{*]|export\s+(default|const|let|var|function|class)\b|^\s*import[\s{*"']/m.test(body))
    throw new Error('ext-apps app-with-deps: more than one closing export list');
  if (/<\/script|<!--/i.test(body))
    throw new Error('ext-apps app-with-deps: it would end the inline <script>');
  if (body.includes(SDK_NAMESPACE)) throw new Error(`ext-apps app-with-deps: it declares ${SDK_NAMESPACE}`);
  const exported = new Map<string, string>();
  for (const entry of (match[1] ?? '').split(',')) {
    const [local, name = local] = entry.trim().split(/\s+as\s+/);
    if (!local || !IDENTIFIER.test(local) || !name || !IDENTIFIER.test(name))
      throw new Error(`ext-apps app-with-deps: unexpected export "${entry.trim()}"`);
    exported.set(name, local);
  }
  const picked = SDK_EXPORTS.map((name) => {
    const local = exported.get(name);
    if (!local) throw new Error(`ext-apps app-with-deps: it does not export ${name}`);
    return `${name}:${local}`;
  });
  return `${body}\nconst ${SDK_NAMESPACE}={${picked.join(',')}};\n`;
}

/** The SDK as shipped in node_modules (read when the view is first built). */
function readExtAppsBundle(): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
}

/** The view's own code, run after the inlined SDK in the same module script. */
export const CSV_CHART_VIEW_SCRIPT = String.raw`
(() => {
  'use strict';
  const { App, applyDocumentTheme } = ${SDK_NAMESPACE};
  let table = null;
  let sourceName = 'chart';
  const $ = (id) => document.getElementById(id);
  const status = (text, kind) => {
    const el = $('status');
    el.textContent = text;
    el.dataset.kind = kind || '';
  };

  const app = new App({ name: 'csv-chart', version: '0.1.0' }, { availableDisplayModes: ['inline'] });
  // Handlers before connect(): the host may send the tool input as soon as the handshake ends.
  app.ontoolinput = (params) => {
    const name = params && params.arguments && params.arguments.filename;
    if (typeof name === 'string' && name) sourceName = name;
  };
  app.ontoolresult = (result) => showResult(result);
  app.ontoolcancelled = (params) => status('The call was cancelled: ' + ((params && params.reason) || ''), 'error');
  app.onhostcontextchanged = (context) => {
    if (context.theme) applyDocumentTheme(context.theme);
  };
  app.onteardown = async () => ({});

  function showResult(result) {
    if (!result) return;
    if (result.isError) {
      status(errorText(result) || 'The tool failed.', 'error');
      return;
    }
    const data = result.structuredContent;
    if (!data || !Array.isArray(data.columns) || !Array.isArray(data.rows)) {
      status('No table in the result.', 'error');
      return;
    }
    table = data;
    const summary = data.results && data.results.summary;
    $('title').textContent = typeof summary === 'string' ? summary : sourceName;
    draw();
    $('export').disabled = false;
    status(data.truncated ? 'Showing the first ' + data.rows.length + ' rows.' : '', '');
  }

  function textOf(result) {
    const block = (result.content || []).find((item) => item && item.type === 'text');
    return block ? String(block.text) : '';
  }

  /** A v2.1 error's own words (results.error), else the result's text. */
  function errorText(result) {
    const results = result.structuredContent && result.structuredContent.results;
    if (results && typeof results.error === 'string') return results.error;
    return textOf(result);
  }

  /** What the user reads after an export: the saved file's name, or why it failed. */
  function savedText(result) {
    if (!result || result.isError) return { text: 'Saving failed: ' + ((result && errorText(result)) || 'the tool failed.'), kind: 'error' };
    const results = result.structuredContent && result.structuredContent.results;
    const saved = results && typeof results.saved === 'string' ? results.saved : '';
    return { text: saved ? 'Saved ' + saved + ' to your files.' : 'Saved to your files.', kind: 'ok' };
  }
  const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2'];

  function draw() {
    const canvas = $('chart');
    const ctx = canvas.getContext('2d');
    const width = canvas.width;
    const height = canvas.height;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    const series = [];
    table.columns.forEach((column, index) => {
      if (column && column.numeric && series.length < COLORS.length) series.push({ name: String(column.name), index });
    });
    const legend = $('legend');
    legend.textContent = '';
    if (series.length === 0) {
      status('No numeric column to draw.', 'error');
      return;
    }
    const rows = table.rows;
    let min = Infinity;
    let max = -Infinity;
    for (const row of rows) {
      for (const s of series) {
        const v = row[s.index];
        if (typeof v === 'number') {
          if (v < min) min = v;
          if (v > max) max = v;
        }
      }
    }
    if (min === Infinity) { min = 0; max = 1; }
    if (min > 0) min = 0;
    if (max === min) max = min + 1;
    const pad = { left: 56, right: 16, top: 16, bottom: 32 };
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    const x = (i) => pad.left + (rows.length <= 1 ? plotW / 2 : (i * plotW) / (rows.length - 1));
    const y = (v) => pad.top + plotH - ((v - min) * plotH) / (max - min);
    ctx.strokeStyle = '#9ca3af';
    ctx.lineWidth = 1;
    ctx.fillStyle = '#374151';
    ctx.font = '12px sans-serif';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let t = 0; t <= 4; t++) {
      const v = min + ((max - min) * t) / 4;
      const ty = y(v);
      ctx.beginPath();
      ctx.moveTo(pad.left, ty);
      ctx.lineTo(width - pad.right, ty);
      ctx.globalAlpha = t === 0 ? 1 : 0.3;
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillText(Number(v.toPrecision(4)).toString(), pad.left - 6, ty);
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText('row 1', pad.left, height - pad.bottom + 8);
    ctx.textAlign = 'right';
    if (rows.length > 1) ctx.fillText('row ' + rows.length, width - pad.right, height - pad.bottom + 8);
    series.forEach((s, n) => {
      ctx.strokeStyle = COLORS[n];
      ctx.fillStyle = COLORS[n];
      ctx.lineWidth = 2;
      ctx.beginPath();
      let started = false;
      rows.forEach((row, i) => {
        const v = row[s.index];
        if (typeof v !== 'number') { started = false; return; }
        if (started) ctx.lineTo(x(i), y(v));
        else { ctx.moveTo(x(i), y(v)); started = true; }
      });
      ctx.stroke();
      if (rows.length <= 60) {
        rows.forEach((row, i) => {
          const v = row[s.index];
          if (typeof v === 'number') ctx.fillRect(x(i) - 2, y(v) - 2, 4, 4);
        });
      }
      // The key is drawn on the canvas too, so the exported PNG says which line is which.
      ctx.textAlign = 'right';
      ctx.textBaseline = 'top';
      ctx.font = '12px sans-serif';
      ctx.fillText(s.name, width - pad.right - 16, pad.top + 4 + n * 16);
      ctx.fillRect(width - pad.right - 12, pad.top + 6 + n * 16, 10, 10);
      const item = document.createElement('span');
      item.className = 'key';
      item.style.setProperty('--c', COLORS[n]);
      item.textContent = s.name;
      legend.appendChild(item);
    });
  }

  function pngName() {
    const base = String(sourceName).split(/[\\/]/).pop().replace(/\.[^.]*$/, '');
    const safe = base.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'chart';
    return safe + '-chart.png';
  }

  $('export').addEventListener('click', async () => {
    if (!table) return;
    const button = $('export');
    button.disabled = true;
    status('Saving…', '');
    try {
      const dataUrl = $('chart').toDataURL('image/png');
      const png_base64 = dataUrl.slice(dataUrl.indexOf(',') + 1);
      const result = await app.callServerTool({ name: 'save_chart_png', arguments: { png_base64, name: pngName() } });
      const said = savedText(result);
      status(said.text, said.kind);
    } catch (error) {
      status('Saving failed: ' + (error && error.message ? error.message : String(error)), 'error');
    } finally {
      button.disabled = false;
    }
  });

  app.connect().then(
    () => {
      const context = app.getHostContext();
      if (context && context.theme) applyDocumentTheme(context.theme);
    },
    (error) => status('The host did not answer ui/initialize: ' + error.message, 'error'),
  );
})();
`;

const STYLE = `
:root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); }
body { margin: 0; padding: 12px; background: var(--color-background-primary, #fff); color: var(--color-text-primary, #111827); }
[data-theme=dark] body { background: var(--color-background-primary, #111827); color: var(--color-text-primary, #f3f4f6); }
h1 { font-size: 15px; margin: 0 0 8px; font-weight: 600; }
canvas { width: 100%; max-width: 720px; height: auto; border: 1px solid #e5e7eb; border-radius: 6px; background: #fff; }
#legend { display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0; font-size: 12px; }
.key::before { content: ''; display: inline-block; width: 10px; height: 10px; margin-right: 4px; background: var(--c); border-radius: 2px; }
.bar { display: flex; align-items: center; gap: 12px; margin-top: 8px; font-size: 13px; }
#status[data-kind=error] { color: #b91c1c; }
#status[data-kind=ok] { color: #15803d; }
[data-theme=dark] #status[data-kind=error] { color: #f87171; }
[data-theme=dark] #status[data-kind=ok] { color: #4ade80; }
`;

let html: string | undefined;

/**
 * The whole view: inline style and one module script (the SDK, then the view's code), nothing
 * fetched. Built once, on first use: the server builds it when it starts, so a missing or
 * reshaped SDK stops the start rather than a later read.
 */
export function csvChartViewHtml(): string {
  html ??= `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CSV chart</title>
<style>${STYLE}</style>
</head>
<body>
<h1 id="title">Waiting for the tool's result…</h1>
<canvas id="chart" width="720" height="360" aria-label="Chart of the numeric columns"></canvas>
<div id="legend"></div>
<div class="bar"><button id="export" type="button" disabled>Export PNG</button><span id="status" role="status"></span></div>
<script type="module">
${inlineExtApps(readExtAppsBundle())}${CSV_CHART_VIEW_SCRIPT}</script>
</body>
</html>
`;
  return html;
}
