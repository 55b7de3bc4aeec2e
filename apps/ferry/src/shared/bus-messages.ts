// What the instance bus publishes, as JSON: a request (to one instance's channel) or a broadcast
// (to every instance's), and the reply each answer goes back in. Checked on arrival, since anything
// that can PUBLISH to Redis can write on these channels.
import { z } from 'zod';

const name = z.string().min(1).max(200);

const askSchema = z.object({
  type: z.enum(['request', 'broadcast']),
  id: name,
  from: name,
  kind: name,
  payload: z.unknown(),
});

const replySchema = z.object({
  type: z.literal('reply'),
  id: name,
  /** Who answered (a broadcast collects one answer per instance). */
  instance: name,
  ok: z.boolean(),
  value: z.unknown().optional(),
  /** A handler's error as it crosses (instance-bus.ts `toCrossingError`). */
  error: z
    .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
    .optional(),
});

const messageSchema = z.discriminatedUnion('type', [askSchema, replySchema]);

export type BusReply = z.infer<typeof replySchema>;
export type BusMessage = z.infer<typeof messageSchema>;

export function parseBusMessage(
  text: string,
): { ok: true; message: BusMessage } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = messageSchema.safeParse(json);
  return parsed.success
    ? { ok: true, message: parsed.data }
    : { ok: false, reason: parsed.error.issues[0]?.message ?? 'not a bus message' };
}

export function encodeBusMessage(message: BusMessage): string {
  return JSON.stringify(message);
}
