// Public API of @ferry/contract. Any export added here becomes public: named exports only, and
// nothing reachable from this file may import `node:` (the web app imports it; see
// test/barrel-clean.test.ts).

export { checkBase64 } from './codecs/base64.js';
export { dataUriPrefix, encodeDataUri, parseDataUri, redactDataUri } from './codecs/data-uri.js';
export { ENV_EXPECTED, parseEnvFlag, parseEnvNumber } from './codecs/env-values.js';
export { fileProviderLine } from './codecs/file-provider-line.js';
export { formatBytes, formatBytesExact } from './codecs/format-bytes.js';
export {
  chooseViewer,
  extensionForMime,
  isGenericMime,
  isValidMime,
  mimeEssence,
  mimeFromName,
  OCTET_STREAM,
  viewerForFile,
} from './codecs/mime.js';
export { replaceDataUris, summarizeBase64Runs } from './codecs/scan-encoded.js';
export {
  createDelimiterDetector,
  detectTableDelimiter,
  normalizeLineBreaks,
  QUOTE_TRAILING_SPACE,
  TABLE_DELIMITERS,
  TABLE_PARSE_CONFIG,
  type TableKind,
} from './codecs/table-rules.js';
export { collapsePosixPath } from './normalize/collect-files.js';
export { normalizeFilename, usableFilename } from './normalize/filename.js';
export { normalizeToolResult } from './normalize/normalize-tool-result.js';
export {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MODEL_RESULT_CHARS,
  formatLimitBytes,
  MAX_RESULT_DEPTH,
  tooDeepReason,
} from './normalize/result-limits.js';
export {
  type Artifact,
  type DeferredArtifact,
  type Display,
  describeIssues,
  ToolOutputV21Schema,
} from './normalize/schemas.js';
export type { FileOutput, ToolOutcome } from './normalize/tool-outcome.js';
export { isValidUsername } from './normalize/username.js';
export { inspectElicitationLink } from './protocol/elicitation-link.js';
export { fieldLabel } from './protocol/field-label.js';
export { FILE_CONTEXT_FOOTER, type FileContextEntry, formatFileContext } from './protocol/file-context.js';
export {
  FILE_PROVIDER_SOCKET_ENV,
  FILE_PROVIDER_TOKEN_ENV,
  FILE_PROVIDER_URL_ENV,
  fileProviderPath,
  PROVIDER_ERROR_TYPES,
  type ProviderError,
  type ProviderErrorType,
  type ProviderFileStats,
  SANDBOX_FILE_PROVIDER_SOCKET,
} from './protocol/file-provider-protocol.js';
export {
  checkFileInput,
  type FileInput,
  findFileInputs,
  type McpFileDescriptor,
  stripFileInputs,
} from './protocol/mcp-file.js';
export { MCP_FILE_KEYWORD, matchesAccept } from './protocol/mcp-file-accept.js';
export { addMcpFileVocabulary, isDataUriShape } from './protocol/mcp-file-ajv.js';
export { type FileNameArgument, findFileNameArguments } from './protocol/mcp-file-name.js';
export { TIMEOUT_MESSAGE, TIMEOUT_NOTICES, TIMEOUT_SECONDS } from './protocol/timeout-notices.js';
export {
  FILE_PROVIDER_PLACEHOLDERS,
  type FileProviderPlaceholder,
  fillTemplate,
  fillTemplates,
  fillUserTemplate,
  hasOnlyUserPlaceholders,
  INPUT_DIR_NAME,
  placeholdersIn,
  SANDBOX_MODES,
  type SandboxMode,
  type TemplateValues,
  WORKSPACE_ROOT_ENV,
} from './protocol/workspace-protocol.js';
// The HTTP API's wire shapes: each defined once, as a zod schema, in wire/. The routes validate
// and document with the schemas; the web app imports only the types (`import type`), so no zod
// reaches its bundle; the CLI reads answers as these types.
export type { AgentEvent, FileRequestInput, TurnStatus } from './wire/agent-events.js';
export type {
  AgentMessage,
  AssistantMessage,
  AssistantToolCall,
  ToolMessage,
  ToolMessageStatus,
} from './wire/agent-messages.js';
export {
  type CallAnswer,
  type DisplayHints,
  type HostOutputOrigin,
  type HostRejectedOutput,
  MCP_RESULT_MAX_BYTES,
  MODEL_META_DATA_MAX_BYTES,
  type ModelAnswer,
  type ToolCallResponse,
  type UiAnswer,
  type UiCanvas,
  type UiFile,
  type UnstoredOutput,
} from './wire/call-answer.js';
export { CALL_EVENT_TYPES, TERMINAL_EVENTS } from './wire/call-event-types.js';
export type {
  CallEvent,
  CallEventBody,
  FileProviderCallEvent,
  StoredFileSummary,
} from './wire/call-events.js';
export {
  CALL_FORMS,
  type CallForm,
  type CallV21Form,
  CallV21FormSchema,
  type V21OutputFile,
} from './wire/call-v21-form.js';
export {
  type CallDetail,
  CallDetailQuerySchema,
  CallDetailSchema,
  type CallHandle,
  CallHandleSchema,
  CallListQuerySchema,
  type CallPage,
  CallPageSchema,
  type CallStatus,
  type CallSummary,
  type ElicitationAnswer,
  ElicitationAnsweredSchema,
  ElicitationAnswerSchema,
  StartCallBodySchema,
  type StartCallRequest,
} from './wire/calls-api.js';
export { CanvasOpenBodySchema } from './wire/canvas-api.js';
export {
  CancelTurnAnswerSchema,
  ConversationDetailSchema,
  type ConversationDto,
  ConversationDtoSchema,
  ConversationPageSchema,
  CreateConversationBodySchema,
  type FileRequestAnswer,
  FileRequestAnsweredSchema,
  FileRequestAnswerSchema,
  ListConversationsQuerySchema,
  RenameConversationBodySchema,
  SendMessageBodySchema,
} from './wire/chat-api.js';
export { EventIdSchema, EventStreamQuerySchema, IdSchema } from './wire/common.js';
export { type ErrorEnvelope, ErrorEnvelopeSchema } from './wire/error-envelope.js';
export {
  ERROR_CODES,
  errorEnvelope,
  FerryError,
  type FerryErrorCode,
  fileNotFoundError,
  fileTooLargeError,
  fileTypeRejectedError,
  invalidPathError,
  isFerryErrorCode,
  timeoutError,
} from './wire/errors.js';
export {
  type FerryStatus,
  type SandboxStatus,
  type StatusDto,
  StatusDtoSchema,
} from './wire/ferry-status.js';
export { type FileDto, FileDtoSchema, type FileInfo, type FileSource } from './wire/file-dto.js';
export {
  MintedProviderTokenSchema,
  MintProviderTokenBodySchema,
  ProviderGrantListSchema,
  ProviderGrantParamsSchema,
} from './wire/file-provider-api.js';
export {
  type DeletedFiles,
  DeletedFilesSchema,
  DeleteFileQuerySchema,
  FileContentQuerySchema,
  FileListQuerySchema,
  type FilePage,
  FilePageSchema,
  FileVersionsQuerySchema,
  RenameFileBodySchema,
  type UploadedFiles,
  UploadedFilesSchema,
  UploadQuerySchema,
} from './wire/files-api.js';
export {
  isModelVisible,
  isUiUri,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  readToolUi,
  readUiResourceMeta,
  type UiResource,
  UiResourceQuerySchema,
  UiResourceSchema,
} from './wire/mcp-apps-api.js';
export {
  OAuthCallbackQuerySchema,
  type OAuthConnectionDto,
  type OAuthConnectionList,
  OAuthConnectionListSchema,
  OAuthServerParamsSchema,
  OAuthStartQuerySchema,
  OAuthStartSchema,
} from './wire/oauth-api.js';
export {
  INJECTED_MARK,
  type InjectedParam,
  type ServerDto,
  type ServerList,
  ServerListSchema,
  type ToolDto,
  type ToolFileInput,
  type ToolList,
  ToolListSchema,
} from './wire/servers-api.js';
export {
  DeletedUserSchema,
  type MeDto,
  MeDtoSchema,
  type Session,
  SessionEndedSchema,
  SessionSchema,
} from './wire/session-api.js';
export type { UserEvent, UserEventBody } from './wire/user-events.js';
