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
    ...(probe.runsAs !== undefined && { runsAs: probe.runsAs }),
    ...(probe.sees !== undefined && { sees: probe.sees }),
    network: probe.network,
    summary: describeSandbox(probe),
  };
}

function describeSandbox(probe: SandboxProbe): string {
  const version = probe.bwrapVersion ? ` ${probe.bwrapVersion}` : '';
  switch (probe.effectiveMode) {
    case 'sandboxed':
      return `${probe.mode}: sandboxed (bubblewrap${version}; tools run as ${runsAs(probe)}; network ${probe.network.available ? `isolated by ${probe.network.helper}` : 'unavailable'}; processes limited by ${probe.limits.processes})`;
    case 'refused':
      return `${probe.mode}: UNAVAILABLE, local servers are refused (${probe.reason ?? 'bubblewrap cannot run'})`;
    default:
      return `${probe.mode}: UNSANDBOXED, local servers run as this user without isolation`;
  }
}

function runsAs(probe: SandboxProbe): string {
  const who = probe.runsAs;
  if (!who) return 'an unknown user';
  return `${who.name} (uid ${who.uid}${who.how === 'userns' ? ', Ferry’s own, through a user namespace' : ''})`;
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
