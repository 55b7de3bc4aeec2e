// A CSV file read once, streaming: its header, the stats of every row (lib/table-stats.ts), and
// the first `rowLimit` rows as fields, for a server to show. The report and csv-chart servers
// read their input this way.
import { FerryError } from '@ferry/contract';
import { csvFileRecords, parseCsvRecord } from './csv.js';
import { TableStats } from './table-stats.js';

export async function readCsvTable(path: string, name: string, rowLimit: number) {
  let header: string[] | undefined;
  let stats: TableStats | undefined;
  const rows: string[][] = [];
  for await (const record of csvFileRecords(path)) {
    const fields = parseCsvRecord(record);
    if (!header || !stats) {
      header = fields.map((field) => field.trim());
      stats = new TableStats(header);
      continue;
    }
    stats.add(fields);
    if (rows.length < rowLimit) rows.push(fields);
  }
  if (!header || !stats) throw new FerryError('E_INVALID_INPUT', `${name} is empty: no header row`);
  return { header, stats, rows };
}
