// Public API of @ferry/host. Any export added here becomes public: named exports only.
export type {
  CallOptions,
  ConnectionPool,
  ElicitationAction,
  ElicitationRequest,
  ElicitationResult,
  ProgressUpdate,
  ResourceContents,
  ToolConnection,
} from './connections/connection.js';
export { type ConnectionPoolOptions, createConnectionPool } from './connections/connection-pool.js';
export { type ServerLauncher, unsandboxedLauncher } from './connections/launcher.js';
export { createHost, type ElicitationAnswerRequest, type Host, type HostOptions } from './host.js';
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
export type { FileMode, ServerConfig, ServerConfigInput, ServerTimeouts } from './servers/server-config.js';
export { SCHEMA_BY_TRANSPORT as SERVER_SCHEMA_BY_TRANSPORT } from './servers/server-config.js';
export { createServerRegistry, loadServerRegistry, type ServerRegistry } from './servers/server-registry.js';
export { createWorkspaces, type Workspace, type Workspaces } from './workspace/workspaces.js';
