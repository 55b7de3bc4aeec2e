// Conventions older than v2.1, which hosts must still accept:
// - `make_v2_artifacts`: tool contract v2 (§1): artifacts carried inline as base64 (`b64`), with a
//   `display` block naming the primary file and a `viewer_hint`.
// - `make_legacy_files`: the v1 arrays `returned_file_names` + `returned_file_contents` (base64,
//   same order), which v2 says are being phased out but still recognized.
// Neither writes to disk, so neither declares `username`.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/legacy.ts [--http <port>]
import { isMainModule, jsonResult, runServer, v21Result } from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { escapeHtml } from './lib/report-html.js';

export const MAX_LEGACY_FILES = 20;

export function createLegacyServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-legacy', version: '0.1.0' });
  server.registerTool(
    'make_v2_artifacts',
    {
      title: 'Make v2 artifacts',
      description: 'Returns the text as two inline (base64) files: text.txt and text.html, opening the HTML.',
      inputSchema: z.object({ text: z.string().describe('Any text') }),
    },
    async ({ text }) => {
      const plain = Buffer.from(text, 'utf8');
      const words = text.split(/\s+/).filter(Boolean).length;
      const html = Buffer.from(
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Your text</title></head>\n<body><h1>Your text</h1><p>${words} words</p><pre>${escapeHtml(text)}</pre></body></html>\n`,
        'utf8',
      );
      return v21Result({
        results: { summary: `Made 2 files from ${words} words`, characters: [...text].length, words },
        metaData: { bytes: plain.length },
        artifacts: [
          {
            name: 'text.txt',
            b64: plain.toString('base64'),
            mime: 'text/plain',
            size: plain.length,
            description: 'The text as given',
            viewer: 'code',
          },
          {
            name: 'text.html',
            b64: html.toString('base64'),
            mime: 'text/html',
            size: html.length,
            description: 'The text as a web page',
            viewer: 'html',
          },
        ],
        display: { open_canvas: true, primary_file: 'text.html', mode: 'replace', viewer_hint: 'html' },
      });
    },
  );
  server.registerTool(
    'make_legacy_files',
    {
      title: 'Make legacy files',
      description: `Returns 1 to ${MAX_LEGACY_FILES} small text files with the legacy returned_file_names/returned_file_contents arrays.`,
      inputSchema: z.object({
        count: z.number().int().min(1).max(MAX_LEGACY_FILES).describe('How many files'),
      }),
    },
    async ({ count }) => {
      const names = Array.from({ length: count }, (_, i) => `file_${i + 1}.txt`);
      const contents = names.map((_, i) =>
        Buffer.from(`This is legacy file ${i + 1} of ${count}.\n`, 'utf8').toString('base64'),
      );
      return jsonResult({
        results: `Generated ${count} files (see files)`,
        returned_file_names: names,
        returned_file_contents: contents,
        meta_data: { count },
      });
    },
  );
  return server;
}

if (isMainModule(import.meta.url)) await runServer(createLegacyServer, { name: 'legacy' });
