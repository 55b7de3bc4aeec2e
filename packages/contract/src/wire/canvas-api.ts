// POST /api/canvas-opens (apps/ferry/src/routes/canvas-opens.ts): the web app asks before it frames
// a tool's v2 canvas. The API checks the URL's origin against the server's allowlist again (the
// answer's `allowed` may come from an older config or a restored tab) and logs the open with the
// user's identity (v2 §3: "actions are logged server-side with user identity"). No token here: it
// stays between the page and the frame.
import { z } from 'zod';
import { CanvasEnvelopeSchema } from '../normalize/schemas.js';
import { IdSchema } from './common.js';

export const CanvasOpenBodySchema = z
  .strictObject({
    server: z.string().min(1).max(63),
    canvasId: CanvasEnvelopeSchema.shape.id,
    url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).max(8192),
    callId: IdSchema.optional().describe(
      'The call whose answer carried the canvas, when the page still knows it',
    ),
  })
  .meta({ id: 'CanvasOpen' });
