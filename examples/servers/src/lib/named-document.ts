// SEP-2356's paired filename argument, for the xfile example server: `store_named_document` takes
// a document through x-mcp-file and its original name through an ordinary string argument,
// `document_name`, as the SEP's final text has servers do ("If a server needs the original
// filename, it SHOULD declare a separate ordinary string argument for it"). A host fills both from
// the same pick; the answer reports both, and any `name=` of an earlier-draft data URI, so a test
// can tell what arrived where.
import { createHash } from 'node:crypto';
import { MCP_FILE_KEYWORD, type McpFileDescriptor } from '@ferry/contract';
import { v21Result, withErrorEnvelope } from '@ferry/server-kit';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { readFileInput } from './file-input.js';

const NAMED_DOCUMENT_INPUT: McpFileDescriptor = {
  accept: ['text/csv', 'text/plain'],
  maxSize: 1024 * 1024,
};

export function registerNamedDocumentTool(server: McpServer): void {
  server.registerTool(
    'store_named_document',
    {
      title: 'Store a named document',
      description:
        'Reports the original file name, media type, size and SHA-256 of a CSV or text document the user picks.',
      inputSchema: z.object({
        document: z
          .string()
          .meta({ format: 'uri', [MCP_FILE_KEYWORD]: NAMED_DOCUMENT_INPUT })
          .describe('The document'),
        document_name: z.string().describe('Original file name of the document'),
      }),
    },
    withErrorEnvelope(async ({ document, document_name }) => {
      const parsed = readFileInput('document', document, NAMED_DOCUMENT_INPUT, document_name);
      if (!parsed.ok) return parsed.refused;
      const { mime, name } = parsed.value;
      const bytes = Buffer.from(parsed.value.data());
      return v21Result({
        results: {
          document_name,
          // Only servers of the earlier draft get one (Ferry's per-server xMcpFileNameParam).
          name_param: name ?? null,
          media_type: mime,
          byte_size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        },
      });
    }),
  );
}
