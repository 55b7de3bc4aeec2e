// ModelClient over any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
// LM Studio, LiteLLM …) through the official `openai` package: it owns the HTTP, the SSE parsing
// and the retries; this file only maps messages in and accumulates streamed deltas out.
import OpenAI, { APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  type ModelClient,
  ModelError,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  type StopReason,
} from './model-client.js';

export interface OpenAiCompatibleModelClientOptions {
  /** e.g. `http://127.0.0.1:11434/v1`. @default OpenAI's own API */
  baseURL?: string;
  /** Local servers ignore it; the `openai` package insists on one, so a placeholder is sent. */
  apiKey?: string;
  model: string;
  /** Send image parts to this model. @default false */
  vision?: boolean;
  /** Retries of failed requests (the package's backoff). @default 2 */
  maxRetries?: number;
  /** Per request, in milliseconds. @default 600000 */
  timeoutMs?: number;
  /** Sampling temperature; unset leaves the server's default. */
  temperature?: number;
}

export function createOpenAiCompatibleModelClient(options: OpenAiCompatibleModelClientOptions): ModelClient {
  if (typeof options?.model !== 'string' || options.model === '') {
    throw new Error('[agent] [openai-compatible] option "model" is required');
  }
  const client = new OpenAI({
    apiKey: options.apiKey || 'not-needed',
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 600_000,
  });
  const secret = options.apiKey ?? '';
  return {
    model: options.model,
    vision: options.vision ?? false,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const tools: ChatCompletionTool[] = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const calls: ModelToolCall[] = [];
      let text = '';
      let finish: string | null = null;
      try {
        const stream = await client.chat.completions.create(
          {
            model: options.model,
            messages: request.messages.map(toOpenAi),
            stream: true,
            ...(tools.length > 0 ? { tools } : {}),
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          },
          request.signal ? { signal: request.signal } : {},
        );
        for await (const chunk of stream) {
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const content = choice.delta?.content;
          if (typeof content === 'string' && content !== '') {
            text += content;
            request.onText?.(content);
          }
          for (const delta of choice.delta?.tool_calls ?? []) accumulate(calls, delta);
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      } catch (error) {
        throw toModelError(error, request.signal, secret);
      }
      if (request.signal?.aborted) throw new ModelError('cancelled', 'cancelled');
      const toolCalls = calls.filter((call) => call !== undefined && call.name !== '');
      return { text, toolCalls, stopReason: stopReason(finish, toolCalls.length) };
    },
  };
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/** Tool calls arrive in pieces keyed by `index`: the id and name once, the arguments in slices. */
function accumulate(calls: ModelToolCall[], delta: ToolCallDelta): void {
  const index = Number.isInteger(delta.index) && delta.index >= 0 && delta.index < 128 ? delta.index : 0;
  let call = calls[index];
  if (!call) {
    call = { id: '', name: '', arguments: '' };
    calls[index] = call;
  }
  if (delta.id) call.id = delta.id;
  const name = delta.function?.name;
  if (name && call.name !== name) call.name += name;
  if (delta.function?.arguments) call.arguments += delta.function.arguments;
  // Some servers (older Ollama) send no id; the loop needs one to pair results with calls.
  if (call.id === '') call.id = `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
}

function stopReason(finish: string | null, toolCalls: number): StopReason {
  if (toolCalls > 0) return 'tool_calls';
  if (finish === 'stop' || finish === 'length' || finish === 'content_filter') return finish;
  return finish === null ? 'stop' : 'other';
}

function toOpenAi(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text' as const, text: part.text }
                  : { type: 'image_url' as const, image_url: { url: part.dataUrl } },
              ),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls && message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toModelError(error: unknown, signal: AbortSignal | undefined, secret: string): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIUserAbortError || signal?.aborted) return new ModelError('cancelled', 'cancelled');
  const hide = (text: string) => (secret.length >= 4 ? text.split(secret).join('[api key]') : text);
  if (error instanceof APIError && error.status !== undefined) {
    return new ModelError(
      'http',
      hide(`The model endpoint answered ${error.status}: ${error.message}`),
      error.status,
    );
  }
  if (error instanceof APIError) {
    return new ModelError('connection', hide(`Cannot reach the model endpoint: ${error.message}`));
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('protocol', hide(`Unreadable answer from the model endpoint: ${message}`));
}
