// Public API of @ferry/sandbox. Any export added here becomes public: named exports only.
export {
  type BubblewrapLauncher,
  type BubblewrapLauncherOptions,
  createBubblewrapLauncher,
  SANDBOX_INHERITED_ENV,
  type SandboxWarning,
} from './bubblewrap-launcher.js';
export { type BwrapPlan, bwrapArguments, SANDBOX_TOOL_ROOT } from './bwrap-arguments.js';
export {
  extrasEnv,
  INHERITED_ENV_VARS,
  inheritedEnv,
  type LaunchExtras,
  type LaunchSocket,
  type LaunchSpec,
  LOCAL_SERVER_ENV_DEFAULTS,
  type SandboxLauncher,
  type SandboxServer,
} from './launch-spec.js';
export { type ProbeOptions, probeSandbox, type SandboxProbe } from './probe-sandbox.js';
export { DEFAULT_LIMITS, type ResolvedLimits, resolveLimits, type SandboxLimits } from './sandbox-limits.js';
export { diskUsageBytes } from './user-workspace.js';
export {
  type CleanupResult,
  clearSessionFiles,
  isClearedWorkspace,
  removeUserWorkspace,
  type WorkspaceRef,
} from './workspace-cleanup.js';
