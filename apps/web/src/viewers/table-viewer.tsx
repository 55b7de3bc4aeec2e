// CSV/TSV as a table. The file is fetched and parsed in a Web Worker (table.worker.ts, Papa Parse
// by the rules of @ferry/contract's table-rules.ts), so a 60 MiB CSV never blocks the page and the
// counts match the ones file info and the prompt show. Only the rows in view are in the DOM
// (use-row-window.ts) and only their cells are decoded, so a million rows scroll like 100.
import type { ViewedFile } from '../lib/canvas-layout';
import { tableRow } from './parsed-table';
import { useParsedTable } from './use-parsed-table';
import { useRowWindow } from './use-row-window';
import { ViewerStatus } from './viewer-status';

const ROW_HEIGHT = 28;
const TABLE_LIMIT = 64 * 1024 * 1024;
const OVERSCAN = 20;

export function TableViewer({ fileId, name, mime, size }: ViewedFile) {
  const kind = /\.tsv$/i.test(name) || mime.includes('tab-separated') ? 'tsv' : 'csv';
  const state = useParsedTable(fileId, size, kind, TABLE_LIMIT);
  const parsed = state.table;
  // ViewerStatus speaks FileText: no text yet means loading.
  const status = { text: parsed ? '' : null, error: state.error, truncated: state.truncated };
  const table = parsed && {
    ...parsed,
    widths: [
      String(parsed.rowCount).length * 8 + 24,
      ...parsed.widths.map((chars) => Math.round(chars * 8 + 24)),
    ],
  };
  const rows = useRowWindow(table?.rowCount ?? 0, ROW_HEIGHT, OVERSCAN);
  // The last column takes whatever width is left, so a narrow table still fills the pane.
  const template =
    table?.widths
      .map((w, i) => (i === table.widths.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`))
      .join(' ') ?? '';
  const totalWidth = table?.widths.reduce((a, b) => a + b, 0) ?? 0;
  return (
    <div className="table-viewer">
      <ViewerStatus state={status} limit={TABLE_LIMIT} />
      {table && table.columns === 0 && (
        <p className="viewer-note" data-testid="table-meta">
          No rows: the file has no header record.
        </p>
      )}
      {table && table.columns > 0 && (
        <>
          <p className="table-meta" data-testid="table-meta">
            {table.rowCount.toLocaleString()} rows × {table.columns} columns
          </p>
          {/* A real <table> laid out as a grid: rows in view are absolutely placed. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long table scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
          <div className="table-scroll" ref={rows.ref} onScroll={rows.onScroll} tabIndex={0}>
            <table
              aria-label={name}
              aria-rowcount={table.rowCount + 1}
              style={{ width: `max(${totalWidth}px, 100%)` }}
            >
              <thead>
                <tr className="table-head" style={{ gridTemplateColumns: template }}>
                  <th scope="col" className="row-number">
                    #
                  </th>
                  {Array.from({ length: table.gridColumns }, (_, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                    <th scope="col" key={index} title={table.header[index]}>
                      {table.header[index] ?? ''}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody style={{ height: table.rowCount * ROW_HEIGHT }}>
                {Array.from({ length: rows.window.end - rows.window.start }, (_, offset) => {
                  const index = rows.window.start + offset;
                  const row = tableRow(table, index);
                  return (
                    <tr
                      key={index}
                      aria-rowindex={index + 2}
                      className={`table-row${index % 2 ? ' odd' : ''}`}
                      style={{
                        transform: `translateY(${index * ROW_HEIGHT}px)`,
                        gridTemplateColumns: template,
                        height: ROW_HEIGHT,
                      }}
                    >
                      <td className="row-number">{index + 1}</td>
                      {Array.from({ length: table.gridColumns }, (_, index) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                        <td key={index} title={row[index]}>
                          {row[index] ?? ''}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
