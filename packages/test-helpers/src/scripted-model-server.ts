// A scripted OpenAI-compatible chat-completions server on loopback: real HTTP, answers streamed
// as SSE chunks in the chat-completions format, one scripted reply per request (model-script.ts),
// every request recorded (body, headers, and whether the client closed it early). No keys, no
// network. scripted-model-client.ts plays the same scripts in process, without the wire.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  argumentsText,
  createScriptPlayer,
  failureText,
  type ScriptedReply,
  type ScriptStep,
} from './model-script.js';

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: {
    type: string;
    function: { name: string; description?: string; parameters: Record<string, unknown> };
  }[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: ChatRequestBody;
  /** True once the client closed the connection before the reply ended. */
  aborted: boolean;
  /** Resolves when the exchange is over (reply ended or client gone). */
  closed: Promise<void>;
}

export interface ScriptedModelServer {
  /** e.g. `http://127.0.0.1:12345/v1` */
  baseURL: string;
  requests: RecordedRequest[];
  /** Replaces the script and forgets earlier requests. */
  play(steps: ScriptStep<RecordedRequest>[]): void;
  /** Resolves with the n-th request (1-based) once it has arrived. */
  request(n: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export async function startScriptedModelServer(): Promise<ScriptedModelServer> {
  const player = createScriptPlayer<RecordedRequest>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let settle = () => {};
      const record: RecordedRequest = {
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as ChatRequestBody,
        aborted: false,
        closed: new Promise((resolve) => {
          settle = resolve;
        }),
      };
      res.on('close', () => {
        if (!res.writableFinished) record.aborted = true;
        settle();
      });
      const next = player.next(record);
      if ('error' in next || !req.url?.endsWith('/chat/completions')) {
        res.writeHead('error' in next ? 500 : 404, { 'content-type': 'application/json' });
        const message = 'error' in next ? next.error : `no such endpoint: ${req.url}`;
        res.end(JSON.stringify({ error: { message } }));
        return;
      }
      reply(res, next.reply, record.body.model);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return player.requests;
    },
    play: (steps) => player.play(steps),
    request: (n) => player.request(n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, step: ScriptedReply, model: string): void {
  if (step.status !== undefined) {
    res.writeHead(step.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: failureText(step.status), type: 'server_error' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  send({ role: 'assistant', content: '' });
  for (const piece of step.text ?? []) send({ content: piece });
  if (step.hold) return;
  (step.toolCalls ?? []).forEach((call, index) => {
    const args = argumentsText(call);
    const half = Math.floor(args.length / 2);
    send({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    send({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] });
    send({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
  });
  send({}, step.toolCalls && step.toolCalls.length > 0 ? 'tool_calls' : 'stop');
  res.end('data: [DONE]\n\n');
}
