// Response shapes of the calls API. The outcome mirrors @ferry/host's ToolCallResponse; fields
// not listed here are stripped on the way out, so nothing the host adds later leaks by accident.
import { z } from 'zod';
import { ErrorEnvelopeSchema, IdSchema } from '../http/schemas.js';
import type { CallRecord } from './call-registry.js';

const UiFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mime: z.string(),
  size: z.number(),
  viewer: z.string(),
  primary: z.literal(true).optional(),
  autoOpen: z.boolean(),
  category: z.string().optional(),
  description: z.string().optional(),
  deferred: z.boolean(),
  temporary: z.boolean(),
});

const ToolCallResponseSchema = z
  .object({
    callId: z.string(),
    status: z.enum(['finished', 'failed', 'cancelled']),
    transcript: z.record(z.string(), z.unknown()).optional(),
    forModel: z.object({
      results: z.unknown(),
      files: z.array(z.object({ name: z.string(), description: z.string().optional() })),
      isError: z.boolean(),
      error: z
        .object({ code: z.string(), message: z.string(), suggestion: z.string().optional() })
        .optional(),
      notStored: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
    }),
    forUi: z.object({
      display: z.object({
        openCanvas: z.boolean(),
        primaryFile: z.string().optional(),
        mode: z.string().optional(),
        viewerHint: z.string().optional(),
        storageAction: z.string(),
        categoryHint: z.string().optional(),
        notification: z.string().optional(),
      }),
      canvas: z
        .looseObject({ id: z.string(), url: z.string(), type: z.string(), open: z.boolean() })
        .optional()
        .describe('v2 iframe canvas envelope; render without allow-same-origin'),
      files: z.array(UiFileSchema),
      rejected: z.array(
        z.object({
          origin: z.string(),
          index: z.number().optional(),
          name: z.string().optional(),
          code: z.string(),
          reason: z.string(),
          error: ErrorEnvelopeSchema.optional(),
        }),
      ),
      unstored: z.array(z.object({ name: z.string(), origin: z.string(), reason: z.string() })),
      warnings: z.array(z.string()),
      error: ErrorEnvelopeSchema.optional(),
    }),
  })
  .meta({ id: 'ToolCallResponse' });

export const CallStatusSchema = z.enum(['running', 'finished', 'failed', 'cancelled']);

export const CallSummarySchema = z
  .object({
    callId: IdSchema,
    server: z.string(),
    tool: z.string(),
    status: CallStatusSchema,
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    lastSeq: z.number().int().describe('seq of the newest event; replay with Last-Event-ID'),
  })
  .meta({ id: 'CallSummary' });

export const CallDetailSchema = CallSummarySchema.extend({
  response: ToolCallResponseSchema.nullable().describe('The outcome, once the call has settled'),
}).meta({ id: 'Call' });

export const StartCallBodySchema = z.object({
  server: z.string().min(1).max(63),
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  fileInputs: z
    .record(z.string(), z.union([IdSchema, z.array(IdSchema).max(100)]))
    .optional()
    .describe('x-mcp-file arguments: the My Files ids the user picked'),
});

export function toCallSummary(record: CallRecord): z.output<typeof CallSummarySchema> {
  return {
    callId: record.callId,
    server: record.server,
    tool: record.tool,
    status: record.status,
    startedAt: record.startedAt.toISOString(),
    finishedAt: record.finishedAt ? record.finishedAt.toISOString() : null,
    lastSeq: record.lastSeq,
  };
}
