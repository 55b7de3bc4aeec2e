// What the calls API (apps/ferry/src/routes/calls.ts, call-elicitations.ts) accepts and answers:
// tool calls without a model, their state and outcome, and answers to a server's questions.
import { z } from 'zod';
import { ToolCallResponseSchema } from './call-answer.js';
import { CALL_FORMS } from './call-v21-form.js';
import { IdSchema, pageSchema, pagingFields } from './common.js';

export const CallStatusSchema = z.enum(['running', ...ToolCallResponseSchema.shape.status.options]);
export type CallStatus = z.infer<typeof CallStatusSchema>;

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
export type CallSummary = z.infer<typeof CallSummarySchema>;

/**
 * GET /api/calls/:id's query. Strict, like the list: a misspelt `from=v2.1` is a 400, not the
 * default form answered as if it were the one asked for.
 */
export const CallDetailQuerySchema = z.strictObject({
  form: z
    .enum(CALL_FORMS)
    .optional()
    .describe(
      'v2.1: the outcome as a tool contract v2.1 output (§6.2): files inline as b64 up to base64_size_limit_mb, a reference above it; streamed',
    ),
});

/** GET /api/calls/:id. */
export const CallDetailSchema = CallSummarySchema.extend({
  response: ToolCallResponseSchema.nullable().describe('The outcome, once the call has settled'),
}).meta({ id: 'Call' });
export type CallDetail = z.infer<typeof CallDetailSchema>;

/**
 * GET /api/calls. Strict: an unknown parameter (a misspelt `limt`, a `cursor` this API does not
 * have) is a 400 instead of a silently unpaged answer.
 */
export const CallListQuerySchema = z.strictObject(pagingFields(100, 1000));
export const CallPageSchema = pageSchema(CallSummarySchema);
export type CallPage = z.infer<typeof CallPageSchema>;

/** POST /api/calls. */
export const StartCallBodySchema = z.object({
  server: z.string().min(1).max(63),
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  fileInputs: z
    .record(z.string(), z.union([IdSchema, z.array(IdSchema).max(100)]))
    .optional()
    .describe('x-mcp-file arguments: the My Files ids the user picked'),
});
/** What a client sends to start a call (`arguments` defaults to `{}`). */
export type StartCallRequest = z.input<typeof StartCallBodySchema>;

/** What starting (POST /api/calls) or cancelling (DELETE /api/calls/:id) a call answers. */
export const CallHandleSchema = z.object({ callId: IdSchema, status: CallStatusSchema });
export type CallHandle = z.infer<typeof CallHandleSchema>;

/**
 * POST /api/calls/:id/elicitations/:elicitationId. A URL-mode question (open a link) is answered
 * with the action alone: `accept` says the user opened the link, and carries no content or files.
 */
export const ElicitationAnswerSchema = z
  .strictObject({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .optional()
      .describe('Values of the plain fields (accept of a form only)'),
    files: z
      .record(z.string(), z.union([IdSchema, z.array(IdSchema)]))
      .optional()
      .describe('My Files ids for the x-mcp-file fields (accept of a form only)'),
  })
  .meta({ id: 'ElicitationAnswer' });
export type ElicitationAnswer = z.input<typeof ElicitationAnswerSchema>;
export const ElicitationAnsweredSchema = z.object({ answered: z.literal(true) });
