// Runs table.worker.ts for one file: loading until it answers, then the table or the error. A new
// file (or unmounting) ends the worker, so a stale parse of a large file cannot keep a core busy.
import { useEffect, useState } from 'react';
import { contentUrl } from '../api/client';
import type { ParsedTable } from './parsed-table';
import type { TableReply, TableRequest } from './table.worker';

export interface ParsedTableState {
  table: ParsedTable | null;
  error: string | null;
  truncated: boolean;
}

export function useParsedTable(
  fileId: string,
  size: number,
  kind: 'csv' | 'tsv',
  limit: number,
): ParsedTableState {
  const [state, setState] = useState<ParsedTableState>({ table: null, error: null, truncated: false });
  useEffect(() => {
    setState({ table: null, error: null, truncated: false });
    const worker = new Worker(new URL('./table.worker.ts', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event: MessageEvent<TableReply>) => {
      const reply = event.data;
      setState(
        reply.ok
          ? { table: reply.table, error: null, truncated: reply.truncated }
          : { table: null, error: reply.error, truncated: false },
      );
      worker.terminate();
    });
    worker.addEventListener('error', (event) => {
      setState({ table: null, error: event.message || 'the table worker failed', truncated: false });
      worker.terminate();
    });
    const request: TableRequest = { url: contentUrl(fileId), kind, size, limit };
    worker.postMessage(request);
    return () => worker.terminate();
  }, [fileId, size, kind, limit]);
  return state;
}
