// The seam where MCP meets the model (as the SDK's examples/cli-client/providers/provider.ts):
// one request in, the streamed text and the tool calls out. openai-compatible.ts implements it
// over any chat-completions endpoint; the loop never sees the wire protocol.

export type ModelContentPart = { type: 'text'; text: string } | { type: 'image'; dataUrl: string };

export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ModelContentPart[] }
  | { role: 'assistant'; content: string | null; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ModelToolCall {
  id: string;
  /** The namespaced name the model was shown (tool-names.ts). */
  name: string;
  /** JSON text as the model wrote it: not trusted, parsed and checked by tool-arguments.ts. */
  arguments: string;
}

export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments, with the host-filled parameters removed. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  messages: readonly ModelMessage[];
  /** Empty: the model may not call tools in this request. */
  tools: readonly ModelTool[];
  signal?: AbortSignal;
  /** Each piece of streamed text, as it arrives. */
  onText?(delta: string): void;
}

export type StopReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  stopReason: StopReason;
}

export interface ModelClient {
  /** The model's name, for the startup summary and the conversation record. */
  readonly model: string;
  /** Whether image parts may be sent (vision-capable model, enabled in the config). */
  readonly vision: boolean;
  /**
   * Streams one completion. Rejects with {@link ModelError}; when `signal` aborts, rejects with
   * a ModelError whose code is `cancelled` after closing the stream.
   */
  generate(request: ModelRequest): Promise<ModelResponse>;
}

export type ModelErrorCode = 'cancelled' | 'http' | 'connection' | 'protocol';

/** A failure talking to the model; `message` never holds the API key. */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  readonly status: number | undefined;

  constructor(code: ModelErrorCode, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}
