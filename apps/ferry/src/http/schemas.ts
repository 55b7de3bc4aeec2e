// Schemas shared by several routes: the error envelope every failure answers with, ids, and the
// 4xx/5xx responses each route lists in the OpenAPI document.
import { z } from 'zod';

export const ErrorEnvelopeSchema = z
  .object({
    results: z.object({ error: z.string() }),
    meta_data: z.object({
      is_error: z.literal(true),
      reason: z.string(),
      error_code: z.string().describe('E_INVALID_INPUT, E_FILE_TOO_LARGE, E_UNAUTHORIZED, …'),
      details: z.record(z.string(), z.unknown()),
      retryable: z.boolean(),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Tool contract v2.1 §12 error envelope' });

export const errorResponses = {
  '4xx': ErrorEnvelopeSchema,
  '5xx': ErrorEnvelopeSchema,
} as const;

/** Ids Ferry hands out are UUIDs; anything else (`..%2F`, `%00`, 10 kB) is a 400 before any lookup. */
export const IdSchema = z.uuid('must be a UUID');

export const IdParamsSchema = z.object({ id: IdSchema });

/** An SSE event id as Last-Event-ID or ?lastEventId= carries it back. */
export const EventIdSchema = z.string().regex(/^\d{1,15}$/, 'must be an event id (a non-negative integer)');

/** `true`/`false`/`1`/`0` in a query string. */
export const QueryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** `limit`/`offset` of a list route; `defaultLimit`/`maxLimit` per route. */
export function pagingFields(defaultLimit: number, maxLimit: number) {
  return {
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  };
}

/** A list route's answer: one page of `item`, the total and the paging that was applied. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}
