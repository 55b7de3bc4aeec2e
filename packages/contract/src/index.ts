// Public API of @ferry/contract. Any export added here becomes public: named exports only, and
// nothing reachable from this file may import `node:` (the web app imports it; see
// test/barrel-clean.test.ts).
export type { AgentEvent, TurnStatus } from './agent-events.js';
export type {
  AgentMessage,
  AssistantMessage,
  AssistantToolCall,
  ToolMessage,
  ToolMessageStatus,
} from './agent-messages.js';
export { checkBase64 } from './base64.js';
export type {
  CallAnswer,
  HostOutputOrigin,
  HostRejectedOutput,
  ModelAnswer,
  ToolCallResponse,
  UiAnswer,
  UiFile,
  UnstoredOutput,
} from './call-answer.js';
export {
  CALL_EVENT_TYPES,
  type CallEvent,
  type CallEventBody,
  type StoredFileSummary,
  TERMINAL_EVENTS,
} from './call-events.js';
export { collapsePosixPath } from './collect-files.js';
export { dataUriPrefix, encodeDataUri, parseDataUri, redactDataUri } from './data-uri.js';
export { parseDelimited } from './delimited-text.js';
export { ENV_EXPECTED, parseEnvFlag, parseEnvNumber } from './env-values.js';
export {
  ERROR_CODES,
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  type FerryErrorCode,
  fileNotFoundError,
  fileTooLargeError,
  fileTypeRejectedError,
  invalidPathError,
  isFerryErrorCode,
  timeoutError,
} from './errors.js';
export type { FerryStatus, SandboxStatus } from './ferry-status.js';
export { fieldLabel } from './field-label.js';
export { FILE_CONTEXT_FOOTER, type FileContextEntry, formatFileContext } from './file-context.js';
export type { FileDto, FileInfo, FileSource } from './file-dto.js';
export { normalizeFilename } from './filename.js';
export { formatBytes, formatBytesExact } from './format-bytes.js';
export {
  checkFileInput,
  type FileInput,
  findFileInputs,
  type McpFileDescriptor,
  stripFileInputs,
} from './mcp-file.js';
export { MCP_FILE_KEYWORD, matchesAccept } from './mcp-file-accept.js';
export {
  chooseViewer,
  extensionForMime,
  isGenericMime,
  isValidMime,
  mimeEssence,
  mimeFromName,
  OCTET_STREAM,
  viewerForFile,
} from './mime.js';
export { normalizeToolResult } from './normalize-tool-result.js';
export {
  DEFAULT_MAX_RESULT_BYTES,
  formatLimitBytes,
  MAX_RESULT_DEPTH,
  tooDeepReason,
} from './result-limits.js';
export { replaceBase64Runs, replaceDataUris } from './scan-encoded.js';
export {
  type Artifact,
  type DeferredArtifact,
  type Display,
  describeIssues,
  ToolOutputV21Schema,
} from './schemas.js';
export { TIMEOUT_MESSAGE, TIMEOUT_NOTICES, TIMEOUT_SECONDS } from './timeout-notices.js';
export type { DisplayHints, FileOutput, ToolOutcome } from './tool-outcome.js';
export type { UserEvent, UserEventBody } from './user-events.js';
export { isValidUsername } from './username.js';
export {
  fillUserTemplate,
  fillUserTemplates,
  hasOnlyUserPlaceholders,
  INPUT_DIR_NAME,
  SANDBOX_MODES,
  type SandboxMode,
  WORKSPACE_ROOT_ENV,
} from './workspace-protocol.js';
