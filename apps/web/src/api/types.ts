// The API's shapes are @ferry/contract's (src/wire/), imported as types only (`import type`), so no
// zod reaches the bundle. Only views the app derives from them are here.
import type { UserEventBody } from '@ferry/contract';

/** GET /api/events: My Files changed (upload, rename, delete, a file stored by a tool). */
export type FilesChangedEvent = Extract<UserEventBody, { type: 'files_changed' }>;

/** GET /api/events wraps each call event: `event: call`, data `{ type: 'call', event }`. */
export type UserCallEvent = Extract<UserEventBody, { type: 'call' }>;
