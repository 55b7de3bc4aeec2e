// Per-user OAuth connections to remote MCP servers (apps/ferry/src/routes/oauth.ts, docs/oauth.md):
// which servers the signed-in user has connected, and where to start connecting one. Never a token:
// tokens stay in Ferry's catalog, encrypted, and go only to the server they were issued for.
import { z } from 'zod';

/** connected: Ferry holds a token; needs-connect: the server asked for OAuth and has none; unknown: never asked. */
const OAUTH_CONNECTION_STATES = ['connected', 'needs-connect', 'unknown'] as const;

const OAuthConnectionDtoSchema = z
  .object({
    server: z.string(),
    state: z.enum(OAUTH_CONNECTION_STATES),
    /** The scope granted (connected) or to ask for (needs-connect, after a step-up), as the server names it. */
    scope: z.string().optional(),
    /** When the access token expires (ISO 8601); Ferry refreshes it when the server refuses it. */
    expiresAt: z.string().optional(),
    /** The Ferry route that starts (or renews) the authorization in a browser. */
    connectUrl: z.string(),
  })
  .meta({ id: 'OAuthConnection' });
export type OAuthConnectionDto = z.infer<typeof OAuthConnectionDtoSchema>;

/** GET /api/oauth: every remote server of the configuration, for the signed-in user. */
export const OAuthConnectionListSchema = z.object({ items: z.array(OAuthConnectionDtoSchema) });
export type OAuthConnectionList = z.infer<typeof OAuthConnectionListSchema>;

/** :server of /api/oauth/:server/… */
export const OAuthServerParamsSchema = z.object({ server: z.string().min(1).max(63) });

/** GET /api/oauth/:server/start: `format=json` answers `{ url }` instead of redirecting (the CLI). */
export const OAuthStartQuerySchema = z.object({
  format: z.enum(['redirect', 'json']).default('redirect'),
  /** Where the browser goes once the flow is over (a path of the web app). @default '/' */
  returnTo: z
    .string()
    .regex(/^\/(?!\/)[^\s\\]*$/, 'returnTo must be a path on this site')
    .max(500)
    .optional(),
});

/** 200 of GET /api/oauth/:server/start?format=json. */
export const OAuthStartSchema = z.object({ url: z.string() });

/** GET /api/oauth/callback: what the authorization server sends back (RFC 6749 §4.1.2, RFC 9207). */
export const OAuthCallbackQuerySchema = z.looseObject({
  state: z.string().max(200).optional(),
  code: z.string().max(4096).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
});
