// What the Redis CallStore reads back, checked before it becomes a CallSnapshot or a CallEvent:
// Redis is shared with other instances (and other versions of Ferry), so a record or an entry
// that is not what our scripts write fails loudly here instead of reaching a client half-formed.
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import { z } from 'zod';
import type { CallSnapshot } from './call-store.js';

const epochMs = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);

const CallHashSchema = z.object({
  owner: z.string(),
  username: z.string(),
  server: z.string(),
  tool: z.string(),
  startedAt: epochMs,
  status: z.enum(['running', 'finished', 'failed', 'cancelled']),
  lastSeq: epochMs,
  instance: z.string(),
  finishedAt: epochMs.optional(),
  response: z.string().optional(),
});

/** HGETALL's flat [field, value, …] as ioredis returns it from a script. */
export function fieldsToObject(fields: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) object[fields[i] as string] = fields[i + 1] as string;
  return object;
}

/** The snapshot of a call hash, in the shape the memory store returns (no undefined keys). */
export function snapshotOf(callId: string, hash: Record<string, string>): CallSnapshot {
  const parsed = CallHashSchema.safeParse(hash);
  if (!parsed.success) throw malformed(`call ${callId}`, parsed.error.message);
  const { startedAt, finishedAt, response, ...rest } = parsed.data;
  const snapshot: CallSnapshot = { callId, ...rest, startedAt: new Date(startedAt) };
  if (finishedAt !== undefined) snapshot.finishedAt = new Date(finishedAt);
  if (response !== undefined) snapshot.response = parseResponse(callId, response);
  return snapshot;
}

function parseResponse(callId: string, json: string): ToolCallResponse {
  const value = parseJson(json);
  if (!isObject(value) || typeof value.status !== 'string') {
    throw malformed(`call ${callId}`, 'its response is not a call response');
  }
  // Written by our settle script from a response the registry already checked and redacted.
  return value as ToolCallResponse;
}

/**
 * A live message or a stream entry's `e` field. `expectedSeq` (a stream entry's id) must match
 * the event's seq: the id is what replay by Last-Event-ID ranges over.
 */
export function parseEvent(json: string, expectedSeq?: number): CallEvent | undefined {
  const value = parseJson(json);
  if (!isObject(value) || typeof value.type !== 'string' || typeof value.callId !== 'string')
    return undefined;
  if (!Number.isSafeInteger(value.seq) || (expectedSeq !== undefined && value.seq !== expectedSeq)) {
    return undefined;
  }
  return value as unknown as CallEvent;
}

/** XRANGE's [[id, [field, value, …]], …] as events; an entry that is not one of ours throws. */
export function eventsOfEntries(callId: string, entries: unknown): CallEvent[] {
  if (!Array.isArray(entries)) throw malformed(`events of call ${callId}`, 'not a stream range');
  return entries.map((entry) => {
    const [id, fields] = Array.isArray(entry) ? entry : [];
    const json = Array.isArray(fields) ? fieldsToObject(fields as string[]).e : undefined;
    const event = typeof id === 'string' && json ? parseEvent(json, Number(id.split('-')[0])) : undefined;
    if (!event) throw malformed(`events of call ${callId}`, `entry ${String(id)} is not a call event`);
    return event;
  });
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const malformed = (what: string, why: string) =>
  new Error(`Redis holds a malformed record for ${what}: ${why}`);
