// Convention: `filenames` (v2.1 §3.1), several files in one argument, each handed over by the host
// in the server's file mode (paths under /tmp/{username}/input_files/ for stdio). `merge_csv`
// concatenates CSVs that share a header into merged.csv, streaming: no input is held whole.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/merge.ts [--http <port>]
import { Readable } from 'node:stream';
import { FerryError } from '@ferry/contract';
import {
  type InjectedFile,
  isMainModule,
  readInjectedFile,
  runServer,
  v21Result,
  withErrorEnvelope,
  writeArtifact,
} from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { csvFileRecords, parseCsvRecord } from './lib/csv.js';

export const MAX_MERGE_FILES = 100;

export function createMergeServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-merge', version: '0.1.0' });
  server.registerTool(
    'merge_csv',
    {
      title: 'Merge CSV files',
      description:
        "Concatenates CSV files that have the same header row into merged.csv in the user's files (the header once, then every file's rows in order).",
      inputSchema: z.object({
        filenames: z
          .array(z.string())
          .min(1)
          .max(MAX_MERGE_FILES)
          .describe("The CSV files, by their names in the user's files, in merge order"),
        username: z.string().describe('Injected by the host: the authenticated user'),
      }),
    },
    withErrorEnvelope(async ({ filenames, username }) => {
      const inputs: InjectedFile[] = [];
      try {
        for (const filename of filenames) inputs.push(await readInjectedFile(filename));
        // Every header is checked before anything is written, so a mismatch leaves no half file.
        const headers = await Promise.all(inputs.map((input) => readHeader(input)));
        const header = headers[0] as string[];
        headers.forEach((other, index) => {
          if (!sameHeader(header, other)) {
            throw new FerryError(
              'E_INVALID_INPUT',
              `${inputs[index]?.name} has header ${JSON.stringify(other)}, expected ${JSON.stringify(header)}`,
              { field: 'filenames', index },
            );
          }
        });
        const counts = inputs.map(() => 0);
        async function* merged(): AsyncGenerator<string> {
          for (const [index, input] of inputs.entries()) {
            let first = true;
            for await (const record of csvFileRecords(input.path)) {
              if (first) {
                first = false;
                if (index > 0) continue;
              } else counts[index] = (counts[index] ?? 0) + 1;
              yield `${record}\n`;
            }
          }
        }
        const artifact = await writeArtifact(username, 'merged.csv', Readable.from(merged()), {
          mime: 'text/csv',
          description: `${inputs.length} CSV files merged`,
          category: 'dataset',
        });
        const rows = counts.reduce((sum, count) => sum + count, 0);
        return v21Result({
          results: {
            summary: `Merged ${inputs.length} files into merged.csv: ${rows} rows, ${header.length} columns`,
            rows,
            columns: header.length,
            files: inputs.map((input, index) => ({ name: input.name, rows: counts[index] })),
          },
          metaData: { header },
          artifacts: [artifact],
          display: { open_canvas: true, primary_file: 'merged.csv' },
        });
      } finally {
        await Promise.all(inputs.map((input) => input.dispose()));
      }
    }),
  );
  return server;
}

async function readHeader(input: InjectedFile): Promise<string[]> {
  for await (const record of csvFileRecords(input.path))
    return parseCsvRecord(record).map((field) => field.trim());
  throw new FerryError('E_INVALID_INPUT', `${input.name} is empty: no header row`, { field: 'filenames' });
}

function sameHeader(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

if (isMainModule(import.meta.url)) await runServer(createMergeServer, { name: 'merge' });
