// The chat API: a user's conversations with the model (stored with the catalog), and a turn
// streamed as server-sent events. Thin: the agent runs the turn, the store keeps the messages.
//   POST   /conversations               create
//   GET    /conversations               list, most recent first
//   GET    /conversations/:id           one, with its messages
//   PATCH  /conversations/:id           rename
//   DELETE /conversations/:id           delete (stops a running turn first)
//   POST   /conversations/:id/messages  send a message; the turn streams back as SSE
//   GET    /conversations/:id/turn      follow the running (or last) turn as SSE, from any instance
//   POST   /conversations/:id/cancel    stop the running turn
//   POST   /conversations/:id/file-requests/:requestId   answer a paused call's file request
import { fromStored } from '@ferry/agent';
import {
  type AgentEvent,
  CancelTurnAnswerSchema,
  ConversationDetailSchema,
  ConversationDtoSchema,
  ConversationPageSchema,
  CreateConversationBodySchema,
  EventIdSchema,
  EventStreamQuerySchema,
  FerryError,
  type FerryErrorCode,
  FileRequestAnsweredSchema,
  FileRequestAnswerSchema,
  IdSchema,
  ListConversationsQuerySchema,
  RenameConversationBodySchema,
  SendMessageBodySchema,
} from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf, sessionOf } from '../auth/request-context.js';
import { titleFrom, toConversationJson, toMessageJson } from '../chat/chat-schemas.js';
import { registryHost } from '../chat/registry-host.js';
import { streamTurn } from '../chat/stream-turn.js';
import { ApiError, notFound } from '../http/api-error.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';
import { openSseStream } from '../http/sse.js';

const tags = ['chat'];
const LOST_TURN = 'The Ferry instance running this turn stopped; its answer so far is kept';

export const chatRoutes: FastifyPluginAsyncZod = async (app) => {
  const { agent, chatTurns: turns, sessions, redact, drain } = app.ferry;
  const host = registryHost(app.ferry.host, app.ferry.calls);
  const store = app.ferry.conversations;
  app.addHook('onClose', async () => turns.close());
  const running = async (owner: string, id: string) => (await turns.runningAmong(owner, [id])).has(id);

  const requireStore = () => {
    if (!store) throw new FerryError('E_CHAT_UNAVAILABLE');
    return store;
  };
  const missing = (id: string) => notFound('No such conversation', { conversationId: id });

  app.post(
    '/conversations',
    {
      schema: {
        summary: 'Start a conversation',
        tags,
        body: CreateConversationBodySchema,
        response: { 201: ConversationDtoSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const conversations = requireStore();
      const record = await conversations.create(identityOf(request).owner, {
        title: request.body?.title ?? '',
      });
      reply.code(201).header('location', `/api/conversations/${record.id}`);
      return toConversationJson(record, false);
    },
  );

  app.get(
    '/conversations',
    {
      schema: {
        summary: "The user's conversations, most recently updated first",
        tags,
        querystring: ListConversationsQuerySchema,
        response: {
          200: ConversationPageSchema,
          ...errorResponses,
        },
      },
    },
    async (request, _reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      const page = await conversations.list(owner, request.query);
      const streaming = await turns.runningAmong(
        owner,
        page.items.map((c) => c.id),
      );
      return {
        items: page.items.map((c) => toConversationJson(c, streaming.has(c.id))),
        total: page.total,
        limit: request.query.limit,
        offset: request.query.offset,
      };
    },
  );

  app.get(
    '/conversations/:id',
    {
      schema: {
        summary: 'A conversation with its messages',
        description:
          'User messages are shown as typed: the file list sent to the model with them is not part of them.',
        tags,
        params: IdParamsSchema,
        response: { 200: ConversationDetailSchema, ...errorResponses },
      },
    },
    async (request, _reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      const record = await conversations.get(owner, request.params.id);
      const messages = record && (await conversations.messages(owner, record.id));
      if (!record || !messages) throw missing(request.params.id);
      return {
        ...toConversationJson(record, await running(owner, record.id)),
        messages: messages.map((m) => redact(toMessageJson(m))),
      };
    },
  );

  app.patch(
    '/conversations/:id',
    {
      schema: {
        summary: 'Rename a conversation',
        tags,
        params: IdParamsSchema,
        body: RenameConversationBodySchema,
        response: { 200: ConversationDtoSchema, ...errorResponses },
      },
    },
    async (request, _reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      const record = await conversations.rename(owner, request.params.id, request.body.title);
      if (!record) throw missing(request.params.id);
      return toConversationJson(record, await running(owner, record.id));
    },
  );

  app.delete(
    '/conversations/:id',
    {
      schema: {
        summary: 'Delete a conversation and its messages',
        description: 'A running turn is stopped first. Files the tools stored stay in My Files.',
        tags,
        params: IdParamsSchema,
        response: { 204: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      if (!(await conversations.get(owner, request.params.id))) throw missing(request.params.id);
      await turns.cancel(owner, request.params.id);
      if (!(await conversations.delete(owner, request.params.id))) throw missing(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/conversations/:id/messages',
    {
      bodyLimit: 1024 * 1024,
      schema: {
        summary: 'Send a message; the reply streams back (server-sent events)',
        description:
          'Each event: `id: <n>`, `event: <type>`, `data: <JSON>`. Types: turn_started, token (`delta`), tool_call_started, file_request and file_request_answered (a call waiting for files from the user; answer with POST /api/conversations/{id}/file-requests/{requestId}), tool_call_event (the host call event: progress, notice, file_stored …), tool_call_finished (status, files), message (a stored message), error (`code`, `message`), turn_finished (`status`: completed, cancelled, failed, max_rounds). Closing the stream stops the turn after a grace (15 s) unless it is followed (GET /api/conversations/{id}/turn). 503 E_MODEL_NOT_CONFIGURED without a model; 409 while another turn of the conversation runs.',
        tags,
        params: IdParamsSchema,
        body: SendMessageBodySchema,
        response: {
          200: {
            description: 'The turn as it happens',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const conversations = requireStore();
      if (!agent.configured) {
        throw new FerryError('E_MODEL_NOT_CONFIGURED', 'No model configured: chat is off on this server');
      }
      const user = identityOf(request);
      const id = request.params.id;
      const record = await conversations.get(user.owner, id);
      if (!record) throw missing(id);
      drain.refuseNewWork('the chat turn');
      const slot = await turns.begin(user.owner, id);
      if (!slot) {
        throw new ApiError('E_CONFLICT', 'A reply is already streaming in this conversation', {
          conversationId: id,
          suggestion: 'Wait for it, or cancel it with POST /api/conversations/{id}/cancel',
        });
      }
      try {
        const stored = (await conversations.messages(user.owner, id)) ?? [];
        const history = stored.flatMap((m) => fromStored(m.role, m.data) ?? []);
        if (record.title === '') await conversations.rename(user.owner, id, titleFrom(request.body.text));
        const session = sessionOf(request, reply, sessions);
        await streamTurn({
          reply,
          agent,
          conversations,
          slot,
          redact,
          host,
          requestFiles: (fileRequest, signal) => turns.openFileRequest(user.owner, id, fileRequest, signal),
          user,
          sessionId: session.key,
          conversationId: id,
          history,
          text: request.body.text,
          onError: (error) => request.log.error({ err: error, conversationId: id }, 'chat turn crashed'),
        });
      } catch (error) {
        await slot.end();
        throw error;
      }
      return reply;
    },
  );

  app.get(
    '/conversations/:id/turn',
    {
      schema: {
        summary: "Follow the conversation's running (or last) turn (server-sent events)",
        description:
          'The same events, with the same ids, as the POST /api/conversations/{id}/messages stream that started the turn, from whichever instance: a reloaded page or another device follows the turn (Last-Event-ID or ?lastEventId= replays what came after). The stream ends with the turn. A turn whose Ferry instance stopped ends with an `error` and `turn_finished` failed. 204 when no turn is known (none ran lately).',
        tags,
        params: IdParamsSchema,
        querystring: EventStreamQuerySchema,
        headers: z.looseObject({ 'last-event-id': EventIdSchema.optional() }),
        response: {
          200: {
            description: 'The turn as it happens',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          204: z.null().describe('No turn of this conversation is known'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      const id = request.params.id;
      if (!(await conversations.get(owner, id))) throw missing(id);
      const after = Number(request.headers['last-event-id'] ?? request.query.lastEventId ?? 0);
      let stream: ReturnType<typeof openSseStream> | undefined;
      let last = after;
      let closed = false;
      const pending: [number, AgentEvent][] = [];
      const send = (seq: number, event: AgentEvent) => {
        last = Math.max(last, seq);
        if (stream) stream.send(seq, event.type, event);
        else pending.push([seq, event]);
      };
      let ended = false;
      const end = (how: 'finished' | 'lost') => {
        ended = true;
        if (how === 'lost') {
          send(last + 1, { type: 'error', code: 'E_INTERNAL', message: LOST_TURN });
          send(last + 1, { type: 'turn_finished', status: 'failed' });
        }
        stream?.end();
      };
      // The log replays synchronously or from Redis before it resolves: what it sends before the
      // stream is open waits in `pending`.
      const stop = await turns.follow(owner, id, after, { event: send, end });
      if (!stop) return reply.code(204).send(null);
      stream = openSseStream(reply);
      for (const [seq, event] of pending) stream.send(seq, event.type, event);
      stream.onClose(() => {
        closed = true;
        stop();
      });
      if (ended) stream.end();
      else if (closed) stop();
      return reply;
    },
  );

  app.post(
    '/conversations/:id/cancel',
    {
      schema: {
        summary: 'Stop the running turn',
        description:
          '202 when a turn was stopped (its partial answer is kept, marked cancelled); 200 when none was running.',
        tags,
        params: IdParamsSchema,
        response: {
          200: CancelTurnAnswerSchema,
          202: CancelTurnAnswerSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const conversations = requireStore();
      const { owner } = identityOf(request);
      if (!(await conversations.get(owner, request.params.id))) throw missing(request.params.id);
      const cancelled = await turns.cancel(owner, request.params.id);
      return reply.code(cancelled ? 202 : 200).send({ cancelled });
    },
  );

  app.post(
    '/conversations/:id/file-requests/:requestId',
    {
      schema: {
        summary: "Answer a paused tool call's file request",
        description:
          "A `file_request` event pauses a tool call of the running turn until its user picks (or approves the model's choice of) the files of its x-mcp-file inputs: `accept` with My Files ids per argument, or `decline` (the model is told the user declined; nothing is sent). 404 when the request is unknown, answered or its turn stopped; 4xx with the error envelope when a file is not this user's (E_FILE_NOT_FOUND), not of an accepted type (E_FILE_TYPE_REJECTED), too large (E_FILE_TOO_LARGE) or a required input is missing: the request stays open.",
        tags,
        params: z.object({ id: IdSchema, requestId: IdSchema }),
        body: FileRequestAnswerSchema,
        response: { 200: FileRequestAnsweredSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const { id, requestId } = request.params;
      // Answered where the turn runs (another instance in scale mode), with the same verdicts.
      const result = await turns.answerFileRequest(owner, id, requestId, request.body);
      if (!result) throw notFound('No open file request with this id', { conversationId: id, requestId });
      if (!result.ok) {
        const meta = result.error.meta_data;
        throw new FerryError(meta.error_code as FerryErrorCode, result.error.results.error, meta.details);
      }
      return { answered: true as const };
    },
  );
};
