// One turn of a conversation: the user's text (with the file block) goes to the model; while it
// asks for tools, the calls of one answer run concurrently through the host and their results go
// back; at most `maxToolRounds` such rounds, then one last request without tools. A failed call
// asked for again runs once more only when it was retryable (retry-rule.ts). Every message
// is handed to `persist` as soon as it is settled, so a crash or a cancel keeps what was done.
// Cancel (the signal) stops the model's stream and the running tool calls alike.
import type { AgentEvent, AgentMessage, AssistantMessage, ToolMessage, TurnStatus } from '@ferry/contract';
import { augmentUserText, buildFileBlock, type FileBlockOptions } from './file-block.js';
import type { AgentFiles, RequestFiles } from './fill-file-inputs.js';
import { toModelMessages } from './messages.js';
import { type ModelClient, ModelError, type ModelMessage, type ModelResponse } from './model-client.js';
import { type AgentHost, collectModelTools } from './model-tools.js';
import { createRetryRule, RETRY_REFUSED_CODE } from './retry-rule.js';
import { describeCall, rejectCall, runToolCall } from './run-tool-call.js';
import type { ScrubOptions } from './scrub.js';
import { imageMessage, readImages, type ShownImage, shownNote } from './vision.js';

export interface TurnDeps {
  model: ModelClient;
  host: AgentHost;
  files: AgentFiles;
  systemPrompt: string;
  maxToolRounds: number;
  maxResultChars: number;
  maxCallsPerRound: number;
  visionMaxBytes: number;
  fileBlock: FileBlockOptions;
  scrub: Omit<ScrubOptions, 'username'>;
}

export interface TurnInput {
  user: { owner: string; username: string };
  sessionId?: string;
  /** The conversation so far (as stored). */
  history: readonly AgentMessage[];
  text: string;
  signal?: AbortSignal;
  emit?(event: AgentEvent): void;
  /** Stores settled messages, in order. */
  persist?(messages: AgentMessage[]): Promise<void>;
  /**
   * Runs this turn's tool calls instead of the agent's host, e.g. through the API's call
   * registry, so they are listed, limited and announced like the tool runner's calls.
   */
  host?: AgentHost;
  /**
   * Asks the user for the files of an x-mcp-file input (or to approve the model's choice) while
   * the call waits. Without it, a call that needs such a file is refused to the model.
   */
  requestFiles?: RequestFiles;
}

export interface TurnResult {
  status: TurnStatus;
  /** The messages this turn added, in order. */
  messages: AgentMessage[];
  error?: { code: string; message: string };
}

export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnResult> {
  const signal = input.signal ?? new AbortController().signal;
  const emit = (event: AgentEvent) => input.emit?.(event);
  const produced: AgentMessage[] = [];
  const keep = async (...messages: AgentMessage[]) => {
    produced.push(...messages);
    await input.persist?.(messages);
    for (const message of messages) emit({ type: 'message', message });
  };
  const finish = (status: TurnStatus, error?: { code: string; message: string }): TurnResult => {
    if (error) emit({ type: 'error', ...error });
    emit({ type: 'turn_finished', status });
    return { status, messages: produced, ...(error ? { error } : {}) };
  };

  await keep({ role: 'user', text: input.text });
  try {
    const [catalog, block] = await Promise.all([
      collectModelTools(deps.host, input.user.username),
      buildFileBlock(deps.files, input.user.owner, deps.fileBlock),
    ]);
    emit({
      type: 'turn_started',
      model: deps.model.model,
      tools: catalog.tools.length,
      unavailable: catalog.unavailable,
    });
    const result = { ...deps.scrub, username: input.user.username, maxChars: deps.maxResultChars };
    const messages: ModelMessage[] = [
      { role: 'system', content: deps.systemPrompt },
      ...toModelMessages(input.history),
      { role: 'user', content: augmentUserText(input.text, block) },
    ];
    let shown: { index: number; images: ShownImage[] } | undefined;
    const retries = createRetryRule();

    for (let round = 0; ; round++) {
      if (signal.aborted) return finish('cancelled');
      const allowTools = round < deps.maxToolRounds;
      if (!allowTools && round > 0) {
        messages.push({
          role: 'system',
          content: `Tool round limit (${deps.maxToolRounds}) reached: answer now with what you have, without tools.`,
        });
      }
      let streamed = '';
      let response: ModelResponse;
      try {
        response = await deps.model.generate({
          messages,
          tools: allowTools ? catalog.tools : [],
          signal,
          onText: (delta) => {
            streamed += delta;
            emit({ type: 'token', delta });
          },
        });
      } catch (error) {
        const cancelled = signal.aborted || (error instanceof ModelError && error.code === 'cancelled');
        if (streamed !== '') {
          await keep({
            role: 'assistant',
            text: streamed,
            status: cancelled ? 'cancelled' : 'incomplete',
            model: deps.model.model,
          });
        }
        if (cancelled) return finish('cancelled');
        const message = error instanceof Error ? error.message : String(error);
        return finish('failed', { code: 'E_MODEL_ERROR', message });
      }
      // The images went out once; from now on the request carries only a note about them.
      if (shown) {
        messages[shown.index] = shownNote(shown.images);
        shown = undefined;
      }

      const calls = allowTools ? uniqueIds(response.toolCalls) : [];
      const assistant: AssistantMessage = { role: 'assistant', text: response.text, model: deps.model.model };
      if (calls.length > 0) assistant.toolCalls = calls.map((call) => describeCall(call, catalog));
      await keep(assistant);
      messages.push({
        role: 'assistant',
        content: response.text === '' ? null : response.text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
      if (calls.length === 0) return finish(response.toolCalls.length > 0 ? 'max_rounds' : 'completed');

      const ctx = {
        host: deps.host,
        catalog,
        user: input.user,
        signal,
        result,
        emit,
        files: deps.files,
        requestFiles: input.requestFiles,
        ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      };
      const outcomes = await Promise.all(
        calls.map(async (call, i) => {
          if (i >= deps.maxCallsPerRound) {
            return rejectCall(
              call,
              ctx,
              'E_INVALID_INPUT',
              `Too many tool calls at once: at most ${deps.maxCallsPerRound} per answer`,
              true,
            );
          }
          const refusal = retries.refusal(call);
          if (refusal) return rejectCall(call, ctx, RETRY_REFUSED_CODE, refusal, true);
          const outcome = await runToolCall(call, ctx);
          retries.record(call, outcome.response);
          return outcome;
        }),
      );
      const toolMessages: ToolMessage[] = outcomes.map((o) => o.message);
      let images: ShownImage[] = [];
      if (deps.model.vision && !signal.aborted) {
        for (const outcome of outcomes) {
          const found = outcome.response
            ? await readImages(
                deps.files,
                input.user.owner,
                outcome.response.forUi.files,
                deps.visionMaxBytes,
              ).catch(() => [])
            : [];
          if (found.length > 0) outcome.message.imagesShown = found.map((image) => image.name);
          images = images.concat(found);
        }
      }
      await keep(...toolMessages);
      for (const message of toolMessages)
        messages.push({ role: 'tool', toolCallId: message.toolCallId, content: message.content });
      if (signal.aborted) return finish('cancelled');
      if (images.length > 0) {
        shown = { index: messages.length, images };
        messages.push(imageMessage(images));
      }
    }
  } catch (error) {
    if (signal.aborted) return finish('cancelled');
    return finish('failed', {
      code: 'E_INTERNAL',
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Tool results are paired with calls by id, so ids within one answer must differ. */
function uniqueIds<T extends { id: string }>(calls: readonly T[]): T[] {
  const seen = new Set<string>();
  return calls.map((call, i) => {
    const id = seen.has(call.id) ? `${call.id}_${i}` : call.id;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
