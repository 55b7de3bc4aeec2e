// Public API of @ferry/server-kit: what a TypeScript MCP tool author needs to speak Ferry's file
// conventions. Any export added here becomes public: named exports only.
export {
  type ArtifactData,
  type DeferredArtifactOptions,
  deferredArtifact,
  type PathArtifact,
  type PathDeferredArtifact,
  type Workspace,
  type WriteArtifactOptions,
  workspace,
  writeArtifact,
  writeWorkspaceFile,
} from './artifacts.js';
export {
  type ConnectFileProviderOptions,
  connectFileProvider,
  type FileHashAlgorithm,
  type FileProvider,
  FileProviderCallError,
  type FileProviderErrorType,
  type FileProviderStats,
} from './file-provider-client.js';
export {
  type InjectedFile,
  type InjectedFileSource,
  type ReadInjectedFileOptions,
  readInjectedFile,
} from './injected-file.js';
export { type ProgressContext, reportProgress } from './progress.js';
export {
  errorResult,
  type JsonResultOptions,
  jsonResult,
  type V21ResultInput,
  v21Error,
  v21Result,
  withErrorEnvelope,
} from './results.js';
export {
  isMainModule,
  parseServerArgs,
  type RunningServer,
  type RunServerOptions,
  runServer,
  type ServerArgs,
} from './run-server.js';
export { type McpFileSchemaValidatorOptions, mcpFileSchemaValidator } from './schema-validator.js';
export {
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  type HttpServerHandle,
  MCP_PATH,
  type McpFetch,
  type ServeHttpOptions,
  serveHttp,
} from './serve-http.js';
export { unixSocketFetch } from './unix-socket-fetch.js';
export {
  DEFAULT_WORKSPACE_ROOT,
  normalizeWorkspaceName,
  resolveWorkspacePath,
  workspaceDir,
  workspaceRoot,
} from './workspace-path.js';
