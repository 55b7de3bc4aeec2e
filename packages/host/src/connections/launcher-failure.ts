import { FerryError } from '@ferry/contract';

// A sandbox wrapper that stops a server for a reason of its own (the workspace quota) says why in
// one stderr line, `[ferry/sandbox] E_QUOTA_EXCEEDED: <message>` (packages/sandbox/src/
// sandbox-wrapper.ts). When the connection then drops in the middle of a call, that reason, not
// the SDK's "Connection closed", is the call's failure. Only codes a launcher may raise are
// believed: a tool cannot turn its own crash into another error by printing such a line, since
// the server's stderr is only consulted after the process is gone, and the worst it can do is
// name one of these.
const FAILURE_LINE = /^\[ferry\/sandbox\] (E_QUOTA_EXCEEDED|E_SANDBOX_UNAVAILABLE): (.+)$/gm;
const QUOTA_NUMBERS = /holds (\d+) KiB, over its quota of (\d+) KiB/;

export function launcherFailure(stderr: string | undefined, server: string): FerryError | undefined {
  if (!stderr) return undefined;
  const last = [...stderr.matchAll(FAILURE_LINE)].at(-1);
  if (last === undefined) return undefined;
  const [, code, message] = last as unknown as [string, 'E_QUOTA_EXCEEDED' | 'E_SANDBOX_UNAVAILABLE', string];
  const numbers = code === 'E_QUOTA_EXCEEDED' ? QUOTA_NUMBERS.exec(message) : null;
  return new FerryError(code, `MCP server "${server}" was stopped: ${message}`, {
    server,
    ...(code === 'E_QUOTA_EXCEEDED' && { scope: 'workspace' }),
    ...(numbers && { used_bytes: Number(numbers[1]) * 1024, limit_bytes: Number(numbers[2]) * 1024 }),
  });
}
