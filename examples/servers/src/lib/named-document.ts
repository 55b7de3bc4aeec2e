// SEP-2356's paired filename argument, for the xfile example server: `store_named_document` takes
// a document through x-mcp-file and its original name through an ordinary string argument,
// `document_name`, as the SEP's final text has servers do ("If a server needs the original
// filename, it SHOULD declare a separate ordinary string argument for it"). A host fills both from
// the same pick; the answer reports both, and any `name=` of an earlier-draft data URI, so a test
// can tell what arrived where.
import { createHash } from 'node:crypto';
import {
  checkFileInput,
  FerryError,
  fileTooLargeError,
  fileTypeRejectedError,
  MCP_FILE_KEYWORD,
  type McpFileDescriptor,
  parseDataUri,
} from '@ferry/contract';
import { v21Error, v21Result, withErrorEnvelope } from '@ferry/server-kit';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

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
      const parsed = parseDataUri(document);
      if (!parsed.ok) {
        throw new FerryError('E_INVALID_INPUT', `document is not a valid data URI: ${parsed.reason}`, {
          field: 'document',
        });
      }
      const { mime, byteLength, name } = parsed.value;
      const check = checkFileInput({ mime, size: byteLength, name: document_name }, NAMED_DOCUMENT_INPUT);
      if (!check.ok && check.code === 'E_FILE_TOO_LARGE') {
        return v21Error(
          fileTooLargeError({
            fileSizeBytes: byteLength,
            currentLimitBytes: NAMED_DOCUMENT_INPUT.maxSize as number,
            message: check.reason,
          }),
        );
      }
      if (!check.ok) {
        return v21Error(
          fileTypeRejectedError({ name: document_name, mime, accept: NAMED_DOCUMENT_INPUT.accept ?? [] }),
        );
      }
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
