// Convention: SEP-2356 declarative file inputs. The `image` argument is a
// `{"type":"string","format":"uri"}` property carrying the `x-mcp-file` keyword, so a host renders
// a file picker (PNG/JPEG, at most 5 MiB), never lets the model write the value (Ferry's chat shows
// the model a file-name slot instead), and sends the chosen file as an RFC 2397 data URI. The SEP makes the keyword advisory: the server validates anyway
// and reports violations as tool errors (SEP-1303), never trusting the host's check.
//
// zod's `.meta()` lands verbatim in the JSON Schema the SDK publishes in tools/list, so no raw
// JSON schema is needed to carry the keyword (the tests read it back from tools/list).
//
// `fingerprint_document` takes a CSV or text file the same way and reports its SHA-256, so a test
// can tell exactly which bytes arrived. `review_document` asks in the middle of a call (MCP
// elicitation, form mode) for a file through an x-mcp-file field of the requestedSchema: the SEP's
// second surface. Both it and `ask_note` (an optional note: an accepted empty form comes back as
// `{}`) ask the multi-round-trip way (2026-07-28), which the SDK turns into a real
// `elicitation/create` request for a 2025-11-25 client.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/xfile.ts [--http <port>]
import { createHash } from 'node:crypto';
import { FerryError, MCP_FILE_KEYWORD, type McpFileDescriptor } from '@ferry/contract';
import {
  isMainModule,
  mcpFileSchemaValidator,
  runServer,
  v21Result,
  withErrorEnvelope,
} from '@ferry/server-kit';
import { inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { dataUriOf, readFileInput } from './lib/file-input.js';
import { imageSize } from './lib/image-size.js';
import { registerNamedDocumentTool } from './lib/named-document.js';

export const IMAGE_INPUT: McpFileDescriptor = {
  accept: ['image/png', 'image/jpeg'],
  maxSize: 5 * 1024 * 1024,
};

/** The `inputRequests` key of review_document's question. */
const DOCUMENT_QUESTION = 'document';
/** The `inputRequests` key of ask_note's question. */
const NOTE_QUESTION = 'note';

export const DOCUMENT_INPUT: McpFileDescriptor = {
  accept: ['text/csv', 'text/plain'],
  maxSize: 1024 * 1024,
};

export function createXfileServer(): McpServer {
  // Elicitation answers are checked against requestedSchema: with x-mcp-file known, data URIs
  // skip the `uri` regex (server-kit schema-validator.ts).
  const server = new McpServer(
    { name: 'ferry-example-xfile', version: '0.1.0' },
    { jsonSchemaValidator: mcpFileSchemaValidator() },
  );
  server.registerTool(
    'describe_image',
    {
      title: 'Describe image',
      description:
        'Reports the media type, size in bytes and pixel size of a PNG or JPEG image the user picks.',
      inputSchema: z.object({
        image: z
          .string()
          .meta({ format: 'uri', [MCP_FILE_KEYWORD]: IMAGE_INPUT })
          .describe('The image, as an RFC 2397 data URI'),
      }),
    },
    withErrorEnvelope(async ({ image }) => {
      const parsed = readFileInput('image', image, IMAGE_INPUT);
      if (!parsed.ok) return parsed.refused;
      const { mime, byteLength } = parsed.value;
      const size = imageSize(parsed.value.data());
      if (!size) {
        throw new FerryError('E_INVALID_INPUT', `image claims ${mime} but is neither a PNG nor a JPEG`, {
          field: 'image',
        });
      }
      return v21Result({
        results: {
          summary: `${size.width}×${size.height} ${size.format.toUpperCase()} image, ${byteLength} bytes`,
          media_type: mime,
          byte_size: byteLength,
          width: size.width,
          height: size.height,
          format: size.format,
        },
      });
    }),
  );
  // The chat's x-mcp-file flow needs a tool whose answer proves which bytes arrived: the SHA-256.
  server.registerTool(
    'fingerprint_document',
    {
      title: 'Fingerprint a document',
      description:
        'Reports the media type, size in bytes, SHA-256 and first line of a CSV or text document the user picks.',
      inputSchema: z.object({
        document: z
          .string()
          .meta({ format: 'uri', [MCP_FILE_KEYWORD]: DOCUMENT_INPUT })
          .describe('The document to fingerprint'),
      }),
    },
    withErrorEnvelope(async ({ document }) => {
      const parsed = readFileInput('document', document, DOCUMENT_INPUT);
      if (!parsed.ok) return parsed.refused;
      const { mime } = parsed.value;
      const bytes = Buffer.from(parsed.value.data());
      return v21Result({
        results: {
          media_type: mime,
          byte_size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          first_line: bytes.toString('utf8').split('\n', 1)[0] ?? '',
        },
      });
    }),
  );
  server.registerTool(
    'review_document',
    {
      title: 'Review a document',
      description:
        'Asks the user (MCP elicitation) for a CSV or text document and a note, then reports what arrived: name, size, SHA-256 and the first line.',
      inputSchema: z.object({
        purpose: z.string().default('review').describe('What the document is for; shown in the question'),
      }),
    },
    withErrorEnvelope(async ({ purpose }, ctx) => {
      // Multi round-trip (2026-07-28): the question goes back as an `input_required` result and
      // the client retries the call with the answer; the SDK's legacy shim asks a 2025-11-25
      // client with a real elicitation/create instead, so one handler serves both revisions.
      const answer = inputResponse(ctx.mcpReq.inputResponses, DOCUMENT_QUESTION);
      if (answer.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            [DOCUMENT_QUESTION]: inputRequired.elicit({
              message: `Which document should I use for the ${purpose}?`,
              requestedSchema: {
                type: 'object',
                properties: {
                  document: {
                    type: 'string',
                    format: 'uri',
                    title: 'Document',
                    description: 'A CSV or plain-text file',
                    [MCP_FILE_KEYWORD]: DOCUMENT_INPUT,
                  },
                  note: { type: 'string', title: 'Note' },
                  urgent: { type: 'boolean', title: 'Urgent' },
                },
                required: ['document'],
              } as never,
            }),
          },
        }) as never;
      }
      if (answer.action !== 'accept') return v21Result({ results: { action: answer.action } });
      const content = answer.content ?? {};
      const document = dataUriOf('document', String(content.document ?? ''));
      const bytes = Buffer.from(document.data());
      return v21Result({
        results: {
          action: 'accept',
          name: document.name ?? null,
          media_type: document.mime,
          byte_size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          first_line: bytes.toString('utf8').split('\n', 1)[0] ?? '',
          note: content.note ?? null,
          urgent: content.urgent ?? null,
        },
      });
    }),
  );
  server.registerTool(
    'ask_note',
    {
      title: 'Ask for a note',
      description:
        'Asks the user (MCP elicitation, multi round-trip) for an optional note and reports the answer as it arrived: accepted (possibly empty), declined or cancelled.',
      inputSchema: z.object({}),
    },
    withErrorEnvelope(async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, NOTE_QUESTION);
      if (answer.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            [NOTE_QUESTION]: inputRequired.elicit({
              message: 'Anything to add? Every field is optional.',
              requestedSchema: {
                type: 'object',
                properties: { note: { type: 'string', title: 'Note' } },
              },
            }),
          },
        }) as never;
      }
      return v21Result({ results: { action: answer.action, content: answer.content ?? null } });
    }),
  );
  // SEP-2356's paired filename argument (document + document_name): lib/named-document.ts.
  registerNamedDocumentTool(server);
  return server;
}

if (isMainModule(import.meta.url)) await runServer(createXfileServer, { name: 'xfile' });
