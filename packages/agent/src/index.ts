// Public API of @ferry/agent. Any export added here becomes public: named exports only.
export {
  type Agent,
  AgentNotConfiguredError,
  type AgentOptions,
  createAgent,
  DEFAULT_SYSTEM_PROMPT,
} from './agent.js';
export {
  type AgentConfig,
  type AgentConfigResult,
  agentConfig,
  agentConfigFromEnv,
  describeAgentConfig,
} from './agent-config.js';
export { createAgentFromConfig } from './agent-from-config.js';
export { augmentUserText, buildFileBlock, type FileBlockOptions } from './file-block.js';
export type { FileRequest, FileRequestOutcome, RequestFiles } from './fill-file-inputs.js';
export { fromStored, toModelMessages } from './messages.js';
export {
  type ModelClient,
  type ModelContentPart,
  ModelError,
  type ModelErrorCode,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelTool,
  type ModelToolCall,
  type StopReason,
} from './model-client.js';
export {
  type AgentHost,
  collectModelTools,
  FILENAME_DESCRIPTION,
  FILENAMES_DESCRIPTION,
  modelSchema,
  type OfferedTool,
  type ToolCatalog,
} from './model-tools.js';
export {
  createOpenAiCompatibleModelClient,
  type OpenAiCompatibleModelClientOptions,
} from './openai-compatible.js';
export type { TurnInput, TurnResult } from './run-turn.js';
export { type ScrubOptions, scrubText, scrubValue } from './scrub.js';
export { createToolNameTable, MODEL_TOOL_NAME, type ToolNameTable, type ToolRef } from './tool-names.js';
export { fitText } from './tool-result.js';
