// What this Ferry runs on, as the startup summary prints it and GET /api/status returns it (the web
// app's status bar): one description, so the two cannot disagree.
import type { FerryStatus, SandboxStatus } from '@ferry/contract';
import type { SandboxProbe } from '@ferry/sandbox';

export type { FerryStatus, SandboxStatus } from '@ferry/contract';

export const FERRY_VERSION = '0.1.0';

export function sandboxStatus(probe: SandboxProbe): SandboxStatus {
  return {
    mode: probe.mode,
    effectiveMode: probe.effectiveMode,
    available: probe.available,
    ...(probe.bwrapVersion !== undefined && { bwrapVersion: probe.bwrapVersion }),
    ...(probe.reason !== undefined && { reason: probe.reason }),
    ...(probe.warning !== undefined && { warning: probe.warning }),
    summary: describeSandbox(probe),
  };
}

function describeSandbox(probe: SandboxProbe): string {
  const version = probe.bwrapVersion ? ` ${probe.bwrapVersion}` : '';
  switch (probe.effectiveMode) {
    case 'sandboxed':
      return `${probe.mode}: sandboxed (bubblewrap${version}; processes limited by ${probe.limits.processes})`;
    case 'refused':
      return `${probe.mode}: UNAVAILABLE, local servers are refused (${probe.reason ?? 'bubblewrap cannot run'})`;
    default:
      return `${probe.mode}: UNSANDBOXED, local servers run as this user without isolation`;
  }
}

/** What an app built without a server (tests, tools) reports. */
export function unknownStatus(): FerryStatus {
  return {
    version: FERRY_VERSION,
    storage: 'unknown',
    catalog: 'unknown',
    auth: 'unknown',
    llm: 'not configured',
    sandbox: {
      mode: 'auto',
      effectiveMode: 'unsandboxed',
      available: false,
      reason: 'no sandbox probe was run',
      summary: 'unknown: no sandbox probe was run',
    },
    warnings: [],
  };
}
