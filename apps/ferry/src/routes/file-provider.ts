// The file provider over HTTP (docs/api.md, "File provider"). Two kinds of route:
// - The endpoint a tool server calls back to, POST /api/file-provider/{username}/mcp (standard MCP)
//   and …/compat. It is authenticated by the provider's own bearer token, not by a Ferry session:
//   a tool is not a browser and has no user header, so these routes live outside the /api context
//   (no session auth, no origin guard; a page elsewhere cannot know the token). The provider's
//   handler answers on the raw response (stateless Streamable HTTP or the compatibility JSON-RPC).
// - The signed-in user's tokens, /api/file-provider/tokens (inside /api: session auth as usual).
import {
  fileProviderPath,
  isValidUsername,
  MintedProviderTokenSchema,
  MintProviderTokenBodySchema,
  ProviderGrantListSchema,
  ProviderGrantParamsSchema,
} from '@ferry/contract';
import { type FileProvider, MAX_PROVIDER_BODY_BYTES } from '@ferry/host';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { ApiError, notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';

/** Live tokens one user may mint for clients of their own (those Ferry mints for servers aside). */
const MAX_USER_TOKENS = 100;

/** What the endpoint answers (documentation only: the provider writes the raw response). */
const JsonRpcMessage = z
  .looseObject({ jsonrpc: z.literal('2.0') })
  .meta({ description: 'A JSON-RPC 2.0 message' });
const endpointResponses = {
  200: { description: 'The JSON-RPC answer', content: { 'application/json': { schema: JsonRpcMessage } } },
  202: z.null().describe('A notification: accepted, nothing to answer'),
  401: {
    description: 'No valid token for this user (WWW-Authenticate: Bearer): a JSON-RPC error',
    content: { 'application/json': { schema: JsonRpcMessage } },
  },
  ...errorResponses,
};

const UsernameParamsSchema = z.object({
  username: z.string().refine(isValidUsername, 'not a valid username'),
});

/** The provider when it is on; 404 (the usual envelope) when Ferry runs without one. */
function enabledProvider(provider: FileProvider | undefined): FileProvider {
  if (!provider?.settings.enabled) throw notFound('The file provider is not enabled on this Ferry');
  return provider;
}

/** POST /api/file-provider/{username}/mcp and /compat; registered at the root, outside /api's auth. */
export const fileProviderEndpointRoutes: FastifyPluginAsyncZod = async (app) => {
  const provider = app.ferry.fileProvider;

  for (const surface of ['mcp', 'compat'] as const) {
    const path = fileProviderPath(':username', surface === 'compat');
    app.post(
      path,
      {
        // The endpoint's own limit (the sockets apply it too): a JSON-RPC message is far smaller.
        bodyLimit: MAX_PROVIDER_BODY_BYTES,
        schema: {
          summary:
            surface === 'mcp'
              ? "The user's file provider (MCP, stateless Streamable HTTP)"
              : "The user's file provider (compatibility JSON-RPC: the result is the bare value)",
          description:
            'For tool servers calling back. Authorization: Bearer <token> (or ?access_token=), a token ' +
            'Ferry minted for this user; anything else is 401 with WWW-Authenticate: Bearer. The body ' +
            'is one JSON-RPC message (application/json, at most 1 MiB).',
          tags: ['file provider'],
          params: UsernameParamsSchema,
          response: endpointResponses,
        },
      },
      async (request, reply) => {
        const { endpoint } = enabledProvider(provider);
        // Security headers set on the reply would be lost once it is hijacked: set them on the raw one.
        reply.raw.setHeader('x-content-type-options', 'nosniff');
        reply.raw.setHeader('cache-control', 'no-store');
        reply.hijack();
        try {
          await endpoint.handle(
            request.raw,
            reply.raw,
            { username: request.params.username, compat: surface === 'compat' },
            request.body,
          );
        } catch (error) {
          request.log.error({ err: error }, 'file provider endpoint failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(
              JSON.stringify({
                jsonrpc: '2.0',
                id: null,
                error: { code: -32603, message: 'Internal error' },
              }),
            );
          } else reply.raw.destroy();
        }
      },
    );
    // Stateless: no stream to open (GET) and no session to end (DELETE).
    app.route({
      method: ['GET', 'DELETE'],
      url: path,
      schema: { hide: true, params: UsernameParamsSchema },
      handler: async (_request, reply) => {
        enabledProvider(provider);
        reply.header('allow', 'POST');
        throw new ApiError(
          'E_METHOD_NOT_ALLOWED',
          'The file provider is stateless: send each JSON-RPC message with POST',
        );
      },
    });
  }
};

/** /api/file-provider/tokens: the signed-in user's own tokens (registered inside /api). */
export const fileProviderTokenRoutes: FastifyPluginAsyncZod = async (app) => {
  const provider = app.ferry.fileProvider;

  app.post(
    '/file-provider/tokens',
    {
      schema: {
        summary: 'Mint a file-provider token for a client of your own',
        description:
          'The token is in this answer only. It reads your workspace and My Files (read-only) until it ' +
          'expires, is revoked, or Ferry restarts.',
        tags: ['file provider'],
        body: MintProviderTokenBodySchema,
        response: { 201: MintedProviderTokenSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { tokens, urlFor } = enabledProvider(provider);
      const { username } = identityOf(request);
      const { ttlSeconds, compat, label } = request.body;
      // Grants live in memory until they expire: one user cannot make it grow without bound.
      const minted = tokens.grants(username).filter((grant) => grant.server === undefined).length;
      if (minted >= MAX_USER_TOKENS) {
        throw new ApiError(
          'E_CONFLICT',
          `You hold ${minted} live file-provider tokens, the most one user may; revoke one (DELETE /api/file-provider/tokens/{grantId}) or wait for one to expire`,
          { field: 'tokens', limit: MAX_USER_TOKENS },
        );
      }
      const { token, grant } = tokens.mint({
        username,
        ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
        ...(compat === undefined ? {} : { compat }),
        ...(label === undefined ? {} : { label }),
      });
      reply.code(201);
      return {
        token,
        grantId: grant.grantId,
        expiresAt: grant.expiresAt.toISOString(),
        url: urlFor(username),
        compatUrl: urlFor(username, true),
      };
    },
  );

  app.get(
    '/file-provider/tokens',
    {
      schema: {
        summary: 'Your live file-provider grants (without their tokens)',
        description: 'Tokens you minted and those Ferry minted for your servers, until they expire.',
        tags: ['file provider'],
        response: { 200: ProviderGrantListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { tokens } = enabledProvider(provider);
      const { username } = identityOf(request);
      return {
        items: tokens.grants(username).map((grant) => ({
          grantId: grant.grantId,
          ...(grant.server === undefined ? {} : { server: grant.server }),
          compat: grant.compat,
          expiresAt: grant.expiresAt.toISOString(),
          ...(grant.label === undefined ? {} : { label: grant.label }),
        })),
      };
    },
  );

  app.delete(
    '/file-provider/tokens/:grantId',
    {
      schema: {
        summary: 'Revoke one of your file-provider grants',
        description:
          'Its token is refused (401) from now on. Another user’s grant is 404, as an unknown one.',
        tags: ['file provider'],
        params: ProviderGrantParamsSchema,
        response: { 204: z.null().describe('Revoked'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { tokens } = enabledProvider(provider);
      const { username } = identityOf(request);
      const { grantId } = request.params;
      // Only the user's own live grants are theirs to revoke; anything else is not there for them.
      if (!tokens.grants(username).some((grant) => grant.grantId === grantId)) {
        throw notFound('No such file-provider grant', { grantId });
      }
      tokens.revoke(grantId);
      return reply.code(204).send(null);
    },
  );
};
