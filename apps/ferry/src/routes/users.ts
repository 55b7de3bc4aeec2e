// User deletion over HTTP: anyone may delete themself; the users listed in `auth.admins` may
// delete anyone. What goes is listed in users/delete-user.ts.
import { DeletedUserSchema, isValidUsername } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { forbidden } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';
import { deleteUser } from '../users/delete-user.js';

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.ferry;

  app.delete(
    '/users/:username',
    {
      schema: {
        summary: 'Delete a user: their files, conversations, workspace and running calls',
        description:
          'A user may delete themself; users in auth.admins may delete anyone. Running calls and chat ' +
          'turns are cancelled first. Deleting a user Ferry never saw succeeds with nothing deleted.',
        tags: ['session'],
        params: z.object({ username: z.string().refine(isValidUsername, 'not a valid username') }),
        response: {
          200: DeletedUserSchema,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const me = identityOf(request);
      const { username } = request.params;
      if (username !== me.username && !services.config.auth.admins.includes(me.username)) {
        throw forbidden('Only an admin (auth.admins) may delete another user', { username });
      }
      const owner = username === me.username ? me.owner : await services.authenticator.ownerOf(username);
      return deleteUser(services, { username, owner });
    },
  );
};
