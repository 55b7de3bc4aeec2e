// Effective modes at a glance (GET /api/status when the server has it): who is signed in,
// storage and catalog, the model, storage use and limits, whether files persist across sessions,
// live updates, a loud warning when local tools run without the sandbox, and the server's other
// warnings (a tool server that cannot start). An older server without /api/status gets the
// sandbox warning too, worded as "not confirmed".

import type { MeDto, ServerDto, StatusDto } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import type { UserStreamState } from '../state/use-user-events';

function sandboxWarning(status: StatusDto | null, servers: readonly ServerDto[]): string | undefined {
  const hasLocal = servers.some((s) => s.transport === 'stdio' && s.enabled);
  if (!hasLocal) return undefined;
  if (!status) return 'Sandbox not confirmed: local tools may run as the Ferry user, without isolation';
  const { sandbox } = status;
  if (sandbox.effectiveMode === 'sandboxed') return undefined;
  if (sandbox.effectiveMode === 'refused') {
    return (
      sandbox.warning ??
      `Sandbox required but unavailable: local tools cannot start (${sandbox.reason ?? ''})`
    );
  }
  return sandbox.warning ?? 'Sandbox off: local tools run as the Ferry user, without isolation';
}

export function StatusBar({
  me,
  status,
  servers,
  stream,
}: {
  me: MeDto | null;
  status: StatusDto | null;
  servers: readonly ServerDto[];
  stream: UserStreamState;
}) {
  const warning = sandboxWarning(status, servers);
  const otherWarnings = status?.warnings.filter((w) => w !== warning) ?? [];
  const modes = servers
    .filter((s) => s.enabled)
    .map((s) => `${s.name}: ${s.transport}, files by ${s.fileMode}`);
  return (
    <footer className="status-bar">
      {me ? (
        <>
          <span title="Signed-in user and how">
            {me.username} ({me.authMode === 'local' ? 'local mode' : 'proxy auth'})
          </span>
          <span title="Storage used">
            {formatBytes(me.usage.bytes)}
            {me.usage.quotaBytes !== null ? ` of ${formatBytes(me.usage.quotaBytes)}` : ''} in{' '}
            {me.usage.count} files
          </span>
          <span title="Largest upload (max_file_size_mb)">
            max file {formatBytes(me.limits.maxFileSizeBytes)}
          </span>
          <span title="persist_files_across_sessions">
            files{' '}
            {me.limits.persistFilesAcrossSessions ? 'persist across sessions' : 'last for this session only'}
          </span>
        </>
      ) : (
        <span>Connecting…</span>
      )}
      {status && (
        <span title={`storage: ${status.storage}; catalog: ${status.catalog}; auth: ${status.auth}`}>
          model: {status.llm}
        </span>
      )}
      <span title={modes.join('\n')}>{servers.filter((s) => s.enabled).length} tool servers</span>
      <span data-testid="live-state" title="User-wide event stream (GET /api/events)">
        {stream === 'live'
          ? 'live updates'
          : stream === 'connecting'
            ? 'connecting…'
            : 'updates after your own actions'}
      </span>
      {otherWarnings.length > 0 && (
        // Shown, not only in a tooltip: a server that cannot start is named here (the first
        // warning on the bar, every one in the list that opens from it).
        <details className="status-warnings" data-testid="status-warnings">
          <summary title={otherWarnings.join('\n')}>
            ⚠ {otherWarnings.length > 1 ? `${otherWarnings.length} warnings: ` : ''}
            {otherWarnings[0]}
          </summary>
          <ul>
            {otherWarnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </details>
      )}
      {warning && (
        <strong className="sandbox-warning" role="status" title={status?.sandbox.summary}>
          ⚠ {warning}
        </strong>
      )}
    </footer>
  );
}
