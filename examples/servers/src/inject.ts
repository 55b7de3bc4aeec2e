// Convention: the file-injection pattern (file-injection-pattern.md). The tool declares
// `filename` beside `file_data_base64`; the host fills `file_data_base64` with the named file's
// bytes (the model only ever names the file) and the tool returns one file as
// `returned_file_name` + `returned_file_base64`.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/inject.ts [--http <port>]
import { createHash } from 'node:crypto';
import { checkBase64, FerryError, normalizeFilename } from '@ferry/contract';
import { isMainModule, jsonResult, runServer, withErrorEnvelope } from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface DocumentMetrics {
  bytes: number;
  sha256: string;
  /** False when the bytes are not UTF-8 text; the counts below are then 0. */
  is_text: boolean;
  characters: number;
  words: number;
  lines: number;
}

export function createInjectServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-inject', version: '0.1.0' });
  server.registerTool(
    'analyze_document',
    {
      title: 'Analyze document',
      description:
        'Analyzes an uploaded document (size, SHA-256, word and line counts) following the instructions, and returns the analysis as a Markdown file. Name the file in `filename`; its content is supplied automatically.',
      inputSchema: z.object({
        instructions: z.string().describe('What to look at'),
        filename: z.string().describe("The document's name in the user's files"),
        file_data_base64: z
          .string()
          .default('')
          .describe('Filled in by the host with the file content; leave empty'),
      }),
    },
    withErrorEnvelope(async ({ instructions, filename, file_data_base64 }) => {
      const name = normalizeFilename(filename);
      if (file_data_base64 === '') {
        throw new FerryError('E_FILE_NOT_FOUND', `No content was supplied for ${name}; is it uploaded?`, {
          name,
        });
      }
      const check = checkBase64(file_data_base64);
      if (!check.valid) {
        throw new FerryError('E_INVALID_INPUT', `file_data_base64 is not base64: ${check.reason}`, {
          field: 'file_data_base64',
        });
      }
      const bytes = Buffer.from(check.clean, 'base64');
      const metrics = measure(bytes);
      const report = [
        `# Analysis of ${name}`,
        '',
        `Instructions: ${instructions}`,
        '',
        '| metric | value |',
        '|---|---|',
        ...Object.entries(metrics).map(([key, value]) => `| ${key} | ${value} |`),
        '',
      ].join('\n');
      const stem = name.replace(/\.[^.]*$/, '') || 'document';
      return jsonResult({
        analysis: metrics.is_text
          ? `Document analysis complete: ${metrics.words} words in ${metrics.lines} lines`
          : `Document analysis complete: ${metrics.bytes} bytes of binary data`,
        metrics,
        returned_file_name: `analysis_${stem}.md`,
        returned_file_base64: Buffer.from(report, 'utf8').toString('base64'),
      });
    }),
  );
  return server;
}

export function measure(bytes: Uint8Array): DocumentMetrics {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  if (text === undefined || text.includes('\0')) {
    return { bytes: bytes.length, sha256, is_text: false, characters: 0, words: 0, lines: 0 };
  }
  // A final line break ends the last line rather than starting an empty one.
  const lines = text === '' ? 0 : text.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/).length;
  return {
    bytes: bytes.length,
    sha256,
    is_text: true,
    characters: [...text].length,
    words: text.split(/\s+/).filter(Boolean).length,
    lines,
  };
}

if (isMainModule(import.meta.url)) await runServer(createInjectServer, { name: 'inject' });
