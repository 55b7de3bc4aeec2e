// The agent's ModelClient played from a script in process (as the SDK's examples/cli-client
// providers/scripted.ts): the same scripts as scripted-model-server.ts, without a socket or the
// chat-completions wire format, for tests of the loop rather than of openai-compatible.ts. Each
// request is recorded as the loop sent it; a request the script has no reply for fails.
import type { ModelClient, ModelError, ModelMessage, ModelResponse, ModelTool } from '@ferry/agent';
import { argumentsText, createScriptPlayer, failureText, type ScriptStep } from './model-script.js';

export interface RecordedModelRequest {
  /** A copy taken when the request was made: the loop goes on changing its own array. */
  messages: ModelMessage[];
  tools: ModelTool[];
  /** `messages` and `tools` as JSON, to search for what the model must never see. */
  raw: string;
  /** True when the request was cancelled before its reply ended. */
  aborted: boolean;
  /** Resolves when the exchange is over (reply ended, failed or cancelled). */
  closed: Promise<void>;
}

export interface ScriptedModelClientOptions {
  /**
   * @ferry/agent's ModelError, which failures are made of. Passed in because this package may
   * import the agent's types only: the agent's own tests import this package.
   */
  ModelError: typeof ModelError;
  /** @default 'scripted-1' */
  model?: string;
  /** @default false */
  vision?: boolean;
}

export interface ScriptedModelClient extends ModelClient {
  readonly requests: RecordedModelRequest[];
  /** Replaces the script and forgets earlier requests. */
  play(steps: ScriptStep<RecordedModelRequest>[]): void;
  /** Resolves with the n-th request (1-based) once it has arrived. */
  request(n: number): Promise<RecordedModelRequest>;
}

export function createScriptedModelClient(options: ScriptedModelClientOptions): ScriptedModelClient {
  const player = createScriptPlayer<RecordedModelRequest>();
  return {
    model: options.model ?? 'scripted-1',
    vision: options.vision ?? false,
    get requests() {
      return player.requests;
    },
    play: (steps) => player.play(steps),
    request: (n) => player.request(n),
    async generate(request): Promise<ModelResponse> {
      const messages = structuredClone([...request.messages]);
      const tools = structuredClone([...request.tools]);
      let settle = () => {};
      const record: RecordedModelRequest = {
        messages,
        tools,
        raw: JSON.stringify({ messages, tools }),
        aborted: false,
        closed: new Promise((resolve) => {
          settle = resolve;
        }),
      };
      const signal = request.signal;
      const cancelled = () => {
        record.aborted = true;
        return new options.ModelError('cancelled', 'cancelled');
      };
      try {
        const next = player.next(record);
        if ('error' in next) {
          throw new options.ModelError(
            'protocol',
            `Scripted model: ${next.error} (the script is played out)`,
          );
        }
        const { reply } = next;
        if (reply.status !== undefined) {
          throw new options.ModelError(
            'http',
            `The model endpoint answered ${reply.status}: ${failureText(reply.status)}`,
            reply.status,
          );
        }
        let text = '';
        for (const piece of reply.text ?? []) {
          if (signal?.aborted) throw cancelled();
          if (piece === '') continue;
          text += piece;
          request.onText?.(piece);
        }
        if (reply.hold) {
          // As the server keeps the stream open: only a cancel ends it.
          await new Promise<void>((resolve) => {
            if (signal?.aborted) resolve();
            signal?.addEventListener('abort', () => resolve(), { once: true });
          });
        }
        if (signal?.aborted) throw cancelled();
        const toolCalls = (reply.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          arguments: argumentsText(call),
        }));
        return { text, toolCalls, stopReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' };
      } finally {
        settle();
      }
    },
  };
}
