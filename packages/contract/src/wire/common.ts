// Building blocks of the HTTP API's shapes: ids, event ids, query-string booleans and list paging.
import { z } from 'zod';

/** Ids Ferry hands out are UUIDs; anything else (`..%2F`, `%00`, 10 kB) is a 400 before any lookup. */
export const IdSchema = z.uuid('must be a UUID');

/** An SSE event id as Last-Event-ID or ?lastEventId= carries it back. */
export const EventIdSchema = z.string().regex(/^\d{1,15}$/, 'must be an event id (a non-negative integer)');

/** The query of an event stream: a reloaded page resumes after `lastEventId` (EventSource sends Last-Event-ID itself). */
export const EventStreamQuerySchema = z.object({ lastEventId: EventIdSchema.optional() });

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
