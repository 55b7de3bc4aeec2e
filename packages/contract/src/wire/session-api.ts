// Who am I, sessions and user deletion (apps/ferry/src/routes/sessions.ts, users.ts).
import { z } from 'zod';

/** GET /api/me: the signed-in user, their usage and limits. */
export const MeDtoSchema = z.object({
  username: z.string(),
  authMode: z.enum(['local', 'proxy']),
  session: z.string().nullable(),
  usage: z.object({ bytes: z.number(), count: z.number(), quotaBytes: z.number().nullable() }),
  limits: z.object({
    maxFileSizeBytes: z.number(),
    base64SizeLimitBytes: z.number(),
    persistFilesAcrossSessions: z.boolean(),
  }),
});
export type MeDto = z.infer<typeof MeDtoSchema>;

/** POST /api/sessions. */
export const SessionSchema = z.object({ id: z.string(), expiresAt: z.string() });
export type Session = z.infer<typeof SessionSchema>;

/** DELETE /api/sessions/:id. */
export const SessionEndedSchema = z.object({ deletedFiles: z.number().int() });

/** DELETE /api/users/:username. */
export const DeletedUserSchema = z.object({
  username: z.string(),
  cancelledCalls: z.number().int(),
  cancelledChatTurns: z.number().int(),
  deletedFiles: z.number().int(),
  deletedConversations: z.number().int(),
  workspaceRemoved: z.boolean(),
});
