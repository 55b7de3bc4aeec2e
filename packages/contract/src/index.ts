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
  UserMessage,
} from './agent-messages.js';
export {
  type Base64Check,
  base64EncodedLength,
  checkBase64,
  decodeBase64,
  encodeBase64,
} from './base64.js';
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
  type CallEventType,
  type HandedOverSummary,
  type StoredFileSummary,
  TERMINAL_EVENTS,
} from './call-events.js';
export { checkToolPath, collapsePosixPath } from './collect-files.js';
export {
  type DataUriLengthOptions,
  type DataUriParseResult,
  type DataUriPrefixOptions,
  dataUriLength,
  dataUriPrefix,
  type EncodeDataUriOptions,
  encodeDataUri,
  type ParsedDataUri,
  parseDataUri,
  redactDataUri,
} from './data-uri.js';
export {
  ERROR_CODES,
  type ErrorCodeInfo,
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  type FerryErrorCode,
  fileNotFoundError,
  fileTooLargeError,
  fileTypeRejectedError,
  invalidPathError,
  isFerryErrorCode,
  sandboxUnavailableError,
  timeoutError,
} from './errors.js';
export type { FerryStatus, SandboxStatus } from './ferry-status.js';
export {
  FILE_CONTEXT_FOOTER,
  FILE_CONTEXT_HEADER,
  type FileContextEntry,
  type FileContextInfo,
  type FormatFileContextOptions,
  formatByteSize,
  formatFileContext,
} from './file-context.js';
export type { FileDto, FileInfo, FileSource } from './file-dto.js';
export { MAX_FILENAME_BYTES, normalizeFilename } from './filename.js';
export { formatBytes, formatBytesExact } from './format-bytes.js';
export {
  checkFileInput,
  type FileCheckResult,
  type FileInput,
  type FileInputWarning,
  type FindFileInputsOptions,
  findFileInputs,
  MCP_FILE_KEYWORD,
  type McpFileDescriptor,
  McpFileDescriptorSchema,
  matchesAccept,
  stripFileInputs,
} from './mcp-file.js';
export {
  chooseViewer,
  extensionForMime,
  isGenericMime,
  isValidMime,
  mimeEssence,
  mimeFromName,
  OCTET_STREAM,
  VIEWERS,
  type Viewer,
  viewerForFile,
} from './mime.js';
export { type NormalizeOptions, normalizeToolResult } from './normalize-tool-result.js';
export {
  DEFAULT_MAX_RESULT_BYTES,
  exceedsDepth,
  formatLimitBytes,
  MAX_RESULT_DEPTH,
  tooDeepReason,
} from './result-limits.js';
export { type Base64RunOptions, replaceBase64Runs, replaceDataUris } from './scan-encoded.js';
export {
  type Artifact,
  ArtifactSchema,
  type CanvasEnvelope,
  CanvasEnvelopeSchema,
  DEFAULT_DEFERRED_EXPIRES_HOURS,
  DEFERRED_REASONS,
  type DeferredArtifact,
  DeferredArtifactSchema,
  DISPLAY_MODES,
  type Display,
  type DisplayMode,
  DisplaySchema,
  describeIssues,
  STORAGE_ACTIONS,
  type StorageAction,
  type ToolOutputV21,
  ToolOutputV21Schema,
} from './schemas.js';
export { TIMEOUT_MESSAGE, TIMEOUT_NOTICES, TIMEOUT_SECONDS, type TimeoutNotice } from './timeout-notices.js';
export type {
  DeferredInfo,
  DisplayHints,
  FileOutput,
  FileSourceForm,
  NormalizeResult,
  OutcomeError,
  OutcomeForm,
  OutputOrigin,
  RejectedOutput,
  ToolOutcome,
} from './tool-outcome.js';
export type { UserEvent, UserEventBody } from './user-events.js';
export { isValidUsername, USERNAME_PATTERN } from './username.js';
