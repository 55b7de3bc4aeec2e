// What a Ferry runs on, as its startup summary prints it and GET /api/status returns it (the web
// app's status bar reads it): apps/ferry/src/status.ts fills it from the config and the sandbox probe.

import type { SandboxMode } from '../protocol/workspace-protocol.js';

export interface SandboxStatus {
  /** The configured floor. */
  mode: SandboxMode;
  /** What local servers get. */
  effectiveMode: 'sandboxed' | 'unsandboxed' | 'refused';
  available: boolean;
  bwrapVersion?: string;
  /** Why the sandbox is unavailable. */
  reason?: string;
  /** Shown loudly whenever tools are not isolated. */
  warning?: string;
  /** The host user sandboxed tools run as: `setpriv` (Ferry is root) or `userns` (Ferry's own uid). */
  runsAs?: { uid: number; gid: number; name: string; how: 'setpriv' | 'userns' };
  /** What the probe's tool saw: the top level of its root and its uid (the allow-list, checked). */
  sees?: { root: string[]; uid: number };
  /** What `"network": true` gets: an isolated user-mode stack, or why there is none. */
  network?: { available: boolean; helper?: string; reason?: string };
  summary: string;
}

export interface FerryStatus {
  version: string;
  storage: string;
  catalog: string;
  auth: string;
  llm: string;
  sandbox: SandboxStatus;
  /** Everything an operator should see: sandbox missing, local auth exposed, unknown config. */
  warnings: string[];
}
