// The file provider's token API for the signed-in user (apps/ferry/src/routes/file-provider.ts):
// mint a token for a client of their own, list their live grants, revoke one. A grant never
// carries its token: the token is shown once, in the answer that minted it.
import { z } from 'zod';

/** The longest a token may live (the design's ceiling; settings.tokenTtlSeconds is the default). */
const MAX_PROVIDER_TOKEN_TTL_SECONDS = 86_400;

/** POST /api/file-provider/tokens. */
export const MintProviderTokenBodySchema = z.strictObject({
  /** @default the provider's token_ttl_seconds */
  ttlSeconds: z
    .number()
    .int('ttlSeconds must be an integer')
    .min(1, 'ttlSeconds must be >= 1')
    .max(MAX_PROVIDER_TOKEN_TTL_SECONDS, `ttlSeconds must be at most ${MAX_PROVIDER_TOKEN_TTL_SECONDS}`)
    .optional(),
  /** The compatibility surface (a JSON-RPC `result` that is the bare value). @default false */
  compat: z.boolean().optional(),
  /** A name the user recognises the token by in the list. */
  label: z.string().trim().min(1).max(100).optional(),
});

/** 201 of POST /api/file-provider/tokens: the token (only here) and where to use it. */
export const MintedProviderTokenSchema = z.object({
  token: z.string(),
  grantId: z.string(),
  /** ISO 8601. */
  expiresAt: z.string(),
  /** The standard MCP endpoint of the user's files. */
  url: z.string(),
  /** The compatibility endpoint. */
  compatUrl: z.string(),
});

/** One live grant, without its token. */
const ProviderGrantDtoSchema = z.object({
  grantId: z.string(),
  /** The MCP server whose connection it was minted for; absent for a token the user minted. */
  server: z.string().optional(),
  compat: z.boolean(),
  /** ISO 8601. */
  expiresAt: z.string(),
  label: z.string().optional(),
});

/** GET /api/file-provider/tokens. */
export const ProviderGrantListSchema = z.object({ items: z.array(ProviderGrantDtoSchema) });

/** DELETE /api/file-provider/tokens/:grantId. */
export const ProviderGrantParamsSchema = z.object({
  grantId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'not a grant id'),
});
