// OAuth connections of the signed-in user to remote MCP servers (docs/oauth.md). The SDK does the
// protocol (packages/host/src/connections/oauth); these routes only move the user's browser:
// start → the authorization server → callback → back to the web app. No token ever appears in a
// response: the list says connected or not, the callback redirects.
import {
  OAuthCallbackQuerySchema,
  OAuthConnectionListSchema,
  OAuthServerParamsSchema,
  OAuthStartQuerySchema,
  OAuthStartSchema,
} from '@ferry/contract';
import type { RemoteAuth } from '@ferry/host';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';

/** Where Ferry serves its client ID metadata document, under /api. */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

export const oauthRoutes: FastifyPluginAsyncZod = async (app) => {
  const auth = (): RemoteAuth => {
    const remoteAuth = app.ferry.remoteAuth;
    if (remoteAuth === undefined) throw notFound('OAuth is not available on this server');
    return remoteAuth;
  };
  const known = (server: string) => {
    if (!app.ferry.host.registry.has(server)) throw notFound(`Unknown MCP server "${server}"`, { server });
  };

  app.get(
    '/oauth',
    {
      schema: {
        summary: "The signed-in user's OAuth connections to remote MCP servers",
        tags: ['oauth'],
        response: { 200: OAuthConnectionListSchema, ...errorResponses },
      },
    },
    async (request) => ({ items: await auth().list(identityOf(request).username) }),
  );

  app.get(
    '/oauth/:server/start',
    {
      schema: {
        summary: 'Starts connecting a remote MCP server: redirects to its authorization server',
        tags: ['oauth'],
        params: OAuthServerParamsSchema,
        querystring: OAuthStartQuerySchema,
        response: { 200: OAuthStartSchema, 302: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { server } = request.params;
      known(server);
      const url = await auth().start(server, identityOf(request).username, {
        ...(request.query.returnTo !== undefined && { returnTo: request.query.returnTo }),
      });
      if (request.query.format === 'json') return { url: url.toString() };
      return reply.code(302).header('location', url.toString()).send(null);
    },
  );

  app.get(
    '/oauth/callback',
    {
      schema: {
        summary: 'Where the authorization server sends the browser back; redirects to the web app',
        tags: ['oauth'],
        querystring: OAuthCallbackQuerySchema,
        response: { 302: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query)) {
        if (typeof value === 'string') params.set(name, value);
      }
      const result = await auth().finish(identityOf(request).username, params);
      const back = new URL(result.returnTo ?? '/', 'http://ferry.invalid');
      back.searchParams.set('oauth', result.outcome);
      back.searchParams.set('server', result.server);
      return reply.code(302).header('location', `${back.pathname}${back.search}`).send(null);
    },
  );

  app.delete(
    '/oauth/:server',
    {
      schema: {
        summary: 'Disconnects a remote MCP server: revokes the tokens and forgets them',
        tags: ['oauth'],
        params: OAuthServerParamsSchema,
        response: { 200: z.object({ deleted: z.boolean(), revoked: z.boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      const { server } = request.params;
      known(server);
      return auth().disconnect(server, identityOf(request).username);
    },
  );

  app.get(
    CLIENT_METADATA_PATH,
    {
      config: { auth: 'none' },
      schema: {
        summary: "Ferry's OAuth client ID metadata document",
        tags: ['oauth'],
        response: { 200: z.record(z.string(), z.unknown()), ...errorResponses },
      },
    },
    async () => {
      const remoteAuth = auth();
      const self = app.ferry.config.server.publicUrl;
      if (!self?.startsWith('https://'))
        throw notFound('No client ID metadata document without an https publicUrl');
      return {
        ...remoteAuth.clientMetadata(),
        client_id: `${self.replace(/\/+$/, '')}/api${CLIENT_METADATA_PATH}`,
        token_endpoint_auth_method: 'none',
      };
    },
  );
};
