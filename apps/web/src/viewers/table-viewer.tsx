// CSV/TSV as a table. Only the rows in view are in the DOM (@tanstack/react-virtual), so 100k
// rows scroll as smoothly as 100. Column widths come from a sample of the first rows.
import { parseDelimited } from '@ferry/contract';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { ViewedFile } from '../lib/canvas-layout';
import { useFileText } from './use-file-text';
import { ViewerStatus } from './viewer-status';

const ROW_HEIGHT = 28;
const TABLE_LIMIT = 64 * 1024 * 1024;

function columnWidths(rows: readonly string[][], columns: number): number[] {
  const widths = new Array<number>(columns).fill(4);
  // The first and the last rows: numbered names ("row 1" … "row 100000") grow towards the end.
  for (const row of [...rows.slice(0, 200), ...rows.slice(-200)]) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 4, Math.min(cell.length, 40));
    });
  }
  return widths.map((chars) => Math.round(chars * 8 + 24));
}

export function TableViewer({ fileId, name, mime, size }: ViewedFile) {
  const state = useFileText(fileId, size, TABLE_LIMIT);
  const table = useMemo(() => {
    if (state.text === null) return null;
    const rows = parseDelimited(
      state.text,
      /\.tsv$/i.test(name) || mime.includes('tab-separated') ? 'tsv' : 'csv',
    );
    // A truncated read may cut the last row in half.
    if (state.truncated) rows.pop();
    const header = rows.shift() ?? [];
    const columns = Math.max(header.length, ...rows.slice(0, 200).map((r) => r.length));
    return {
      header,
      rows,
      columns,
      widths: [String(rows.length).length * 8 + 24, ...columnWidths([header, ...rows], columns)],
    };
  }, [state.text, state.truncated, name, mime]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: table?.rows.length ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  // The last column takes whatever width is left, so a narrow table still fills the pane.
  const template =
    table?.widths
      .map((w, i) => (i === table.widths.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`))
      .join(' ') ?? '';
  const totalWidth = table?.widths.reduce((a, b) => a + b, 0) ?? 0;
  return (
    <div className="table-viewer">
      <ViewerStatus state={state} limit={TABLE_LIMIT} />
      {table && (
        <>
          <p className="table-meta" data-testid="table-meta">
            {table.rows.length.toLocaleString()} rows × {table.columns} columns
          </p>
          {/* A real <table> laid out as a grid: rows are absolutely placed by the virtualizer. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long table scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
          <div className="table-scroll" ref={scroller} tabIndex={0}>
            <table
              aria-label={name}
              aria-rowcount={table.rows.length + 1}
              style={{ width: `max(${totalWidth}px, 100%)` }}
            >
              <thead>
                <tr className="table-head" style={{ gridTemplateColumns: template }}>
                  <th scope="col" className="row-number">
                    #
                  </th>
                  {Array.from({ length: table.columns }, (_, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                    <th scope="col" key={index} title={table.header[index]}>
                      {table.header[index] ?? ''}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody style={{ height: virtualizer.getTotalSize() }}>
                {virtualizer.getVirtualItems().map((item) => {
                  const row = table.rows[item.index] ?? [];
                  return (
                    <tr
                      key={item.key}
                      aria-rowindex={item.index + 2}
                      className={`table-row${item.index % 2 ? ' odd' : ''}`}
                      style={{
                        transform: `translateY(${item.start}px)`,
                        gridTemplateColumns: template,
                        height: ROW_HEIGHT,
                      }}
                    >
                      <td className="row-number">{item.index + 1}</td>
                      {Array.from({ length: table.columns }, (_, index) => (
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
