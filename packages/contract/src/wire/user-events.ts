// The user's own event stream (GET /api/events), as apps/ferry/src/events/user-events.ts publishes
// it and the web app reads it: every event of the user's calls, whoever started them, and changes
// to My Files, each with an id that grows per user (Last-Event-ID replays what is still kept).
import type { CallEvent } from './call-events.js';

export type UserEventBody =
  | { type: 'call'; event: CallEvent }
  | {
      type: 'files_changed';
      reason: 'uploaded' | 'stored' | 'renamed' | 'deleted';
      /** The files concerned, when known (a delete of every version names the one asked for). */
      fileIds: string[];
    };

export type UserEvent = UserEventBody & { id: number; at: string };
