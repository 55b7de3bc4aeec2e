// Public API of @ferry/host. Any export added here becomes public: named exports only.
export type {
  CallOptions,
  ConnectionPool,
  ElicitationAction,
  ElicitationRequest,
  ElicitationResult,
  PoolStats,
  ProgressUpdate,
  ResourceContents,
  ToolConnection,
} from './connections/connection.js';
export type { ConnectionEvent, ConnectionEventListener } from './connections/connection-events.js';
export type { ConnectionExtras, ConnectionExtrasSource } from './connections/connection-extras.js';
export { type ConnectionPoolOptions, createConnectionPool } from './connections/connection-pool.js';
export { type ServerLauncher, unsandboxedLauncher } from './connections/launcher.js';
export {
  createMemoryOAuthRecordStore,
  type OAuthRecord,
  type OAuthRecordStore,
} from './connections/oauth/oauth-record.js';
export {
  createRemoteAuth,
  type FinishResult,
  type RemoteAuth,
  type RemoteAuthOptions,
} from './connections/oauth/remote-auth.js';
export {
  StoredOAuthProvider,
  type StoredOAuthProviderOptions,
} from './connections/oauth/stored-oauth-provider.js';
export {
  type CallbackAttribution,
  callEventOf,
  createCallbackAttribution,
  type RunningCall,
} from './file-provider/callback-attribution.js';
export {
  createFileProvider,
  type FileProvider,
  type FileProviderOptions,
} from './file-provider/create-file-provider.js';
export {
  createProviderEndpoint,
  MAX_PROVIDER_BODY_BYTES,
  type ProviderEndpoint,
  type ProviderEndpointOptions,
  type ProviderRoute,
} from './file-provider/provider-endpoint.js';
export { type ProviderRun, runProviderTool } from './file-provider/provider-operations.js';
export {
  type FileProviderSettingsInput,
  fileProviderSettingsSchema,
  parseFileProviderSettings,
} from './file-provider/provider-settings.js';
export {
  createProviderSockets,
  MAX_SOCKET_PATH_BYTES,
  type ProviderSockets,
  type ProviderSocketsOptions,
} from './file-provider/provider-sockets.js';
export {
  createProviderTokens,
  type MintProviderTokenInput,
  type ProviderGrant,
  type ProviderTokens,
  type ProviderTokensOptions,
  type ProviderTokenVerification,
} from './file-provider/provider-tokens.js';
export {
  FILE_PROVIDER_SERVER_NAME,
  FILE_PROVIDER_SPEC_VERSION,
  type FileProviderSettings,
  OPTIONAL_PROVIDER_TOOLS,
  PROVIDER_ERROR_TYPES,
  PROVIDER_TOOLS,
  type ProviderCallbackEvent,
  type ProviderError,
  type ProviderErrorType,
  type ProviderFileStats,
  type ProviderResult,
  type ProviderScope,
  type ProviderToolName,
  type ProviderValue,
  REQUIRED_PROVIDER_TOOLS,
} from './file-provider/provider-types.js';
export {
  createHost,
  type ElicitationAnswerRequest,
  type Host,
  type HostOptions,
  type SessionServerStart,
} from './host.js';
export { answerFromError } from './pipeline/answer.js';
export {
  callTool,
  type ServerSettings,
  type ToolCallDeps,
  type ToolCallRequest,
} from './pipeline/call-tool.js';
export { type CanvasUrlCheck, checkCanvasUrl } from './pipeline/canvas-policy.js';
export type { Clock } from './pipeline/clock.js';
export type { ElicitationAnswer } from './pipeline/elicitation-bridge.js';
export { pickFileInputs } from './pipeline/pick-file-inputs.js';
export { resolveConventions, type ToolConventions } from './pipeline/resolve-conventions.js';
export { canvasOriginsOf } from './servers/canvas-origins.js';
export type {
  FileMode,
  ServerConfig,
  ServerConfigInput,
  ServerFileProvider,
  ServerTimeouts,
} from './servers/server-config.js';
export { SCHEMA_BY_TRANSPORT as SERVER_SCHEMA_BY_TRANSPORT } from './servers/server-config.js';
export { createServerRegistry, loadServerRegistry, type ServerRegistry } from './servers/server-registry.js';
export {
  createUiResourceReader,
  DEFAULT_MAX_UI_CACHE_BYTES,
  DEFAULT_MAX_UI_HTML_BYTES,
  isMcpAppMimeType,
  type UiResourceReader,
  type UiResourceReaderOptions,
} from './servers/ui-resources.js';
export { createWorkspaces, type Workspace, type Workspaces } from './workspace/workspaces.js';
