// The user's own event stream (GET /api/events), as apps/ferry/src/events/user-events.ts publishes
// it and the web app reads it: every event of the user's calls, whoever started them, and changes
// to My Files, each with an id that grows per user (Last-Event-ID replays what is still kept).
import { z } from 'zod';
import { CallEventSchema } from './call-events.js';

const UserEventBodySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), event: CallEventSchema }),
  z.object({
    type: z.literal('files_changed'),
    reason: z.enum(['uploaded', 'stored', 'renamed', 'deleted']),
    /** The files concerned, when known (a delete of every version names the one asked for). */
    fileIds: z.array(z.string()),
  }),
]);
export type UserEventBody = z.infer<typeof UserEventBodySchema>;

export const UserEventSchema = z.intersection(
  UserEventBodySchema,
  z.object({ id: z.number(), at: z.string() }),
);
export type UserEvent = z.infer<typeof UserEventSchema>;
