// The table viewer's worker: fetches the file (at most `limit` bytes, a Range request), decodes,
// parses and lays out the table off the page's thread, then hands the cells over without a copy.
// The page only ever sees the visible rows' cells (parse-table.ts says why).
import { errorFromResponse } from '../api/client';
import { parseTable } from './parse-table';
import type { ParsedTable } from './parsed-table';

export interface TableRequest {
  url: string;
  kind: 'csv' | 'tsv';
  size: number;
  limit: number;
}

export type TableReply = { ok: true; table: ParsedTable; truncated: boolean } | { ok: false; error: string };

async function load(request: TableRequest): Promise<TableReply> {
  const truncated = request.size > request.limit;
  const response = await fetch(request.url, {
    headers: truncated ? { range: `bytes=0-${request.limit - 1}` } : {},
  });
  if (!response.ok) throw await errorFromResponse(response);
  // ignoreBOM keeps a BOM in the text, so the parser removes exactly one, as the counter does.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer());
  return { ok: true, table: parseTable(text, request.kind, truncated), truncated };
}

addEventListener('message', (event: MessageEvent<TableRequest>) => {
  load(event.data)
    .catch((error: unknown): TableReply => ({ ok: false, error: (error as Error).message }))
    .then((reply) => {
      const transfer = reply.ok
        ? [reply.table.cells.buffer, reply.table.cellEnds.buffer, reply.table.rowStarts.buffer]
        : [];
      postMessage(reply, { transfer });
    });
});
