// One tool call of a chat turn as a collapsible card: server › tool, status, live progress and
// the 15/20/25 s notices while it runs, what it read of the user's files (file provider), then the files it stored (the runner's chips, opening on
// the canvas), the error if any (and whether it may be retried), the tool's meta_data as the model
// read it, and what the model read.
import type { UiFile } from '@ferry/contract';
import { useMemo } from 'react';
import { AppLauncher } from '../apps/app-launcher';
import { CallNotices, CallProgress } from '../components/call-progress';
import { errorTitle } from '../lib/friendly-error';
import { MetaDataTable } from '../runner/meta-data-table';
import { FileChips, FriendlyErrorBox } from '../runner/result-view';
import { AUTH_REQUIRED, oauthStartPath } from '../servers/auth-required';
import { ConnectPrompt } from '../servers/connect-prompt';
import type { ToolEntry } from './chat-model';

const STATUS_TEXT: Record<ToolEntry['status'], string> = {
  pending: 'Waiting',
  running: 'Running…',
  finished: 'Finished',
  failed: 'Failed',
  cancelled: 'Cancelled',
  rejected: 'Not run',
};

function summaryOf(entry: ToolEntry): string {
  if (entry.status === 'running' || entry.status === 'pending') return '';
  const files = entry.files.length;
  if (entry.error) return entry.error.message;
  if (files > 0) return `${files} file${files === 1 ? '' : 's'} stored`;
  return '';
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

interface ModelFacts {
  metaData?: Record<string, unknown>;
  /** Ferry's note when meta_data was over the model's cap. */
  metaDataNote?: string;
  retryable?: boolean;
}

/**
 * meta_data and `error.retryable` as the model read them. The tool result is JSON (the agent's
 * tool-result.ts) unless it was cut to the model's limit; then there is nothing to show here.
 */
function modelFacts(content: string | undefined): ModelFacts {
  if (!content) return {};
  let parsed: { meta_data?: unknown; error?: { retryable?: unknown } };
  try {
    parsed = JSON.parse(content);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const facts: ModelFacts = {};
  const meta = parsed.meta_data;
  if (typeof meta === 'string') facts.metaDataNote = meta;
  else if (typeof meta === 'object' && meta !== null && !Array.isArray(meta))
    facts.metaData = meta as Record<string, unknown>;
  if (typeof parsed.error?.retryable === 'boolean') facts.retryable = parsed.error.retryable;
  return facts;
}

const MAX_SHOWN = 4000;
const shorten = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

export function ToolCard({ entry, onOpen }: { entry: ToolEntry; onOpen(file: UiFile): void }) {
  const running = entry.status === 'running' || entry.status === 'pending';
  const shown = entry.status === 'finished' && entry.isError ? 'failed' : entry.status;
  const summary = summaryOf(entry);
  const label = entry.server && entry.tool ? `${entry.server} › ${entry.tool}` : entry.name;
  const facts = useMemo(() => modelFacts(entry.content), [entry.content]);
  return (
    <article
      className={`chat-tool ${shown}`}
      data-testid="chat-tool"
      data-status={entry.status}
      data-tool={entry.tool ?? entry.name}
      aria-label={`Tool call ${label}`}
    >
      <details open={running || undefined}>
        <summary>
          <span className="chat-tool-name">{label}</span>
          <span className={`call-status ${shown}`} data-testid="chat-tool-status">
            {entry.status === 'finished' && entry.isError
              ? 'Finished with an error'
              : STATUS_TEXT[entry.status]}
          </span>
          {summary && <span className="muted small chat-tool-summary">{summary}</span>}
        </summary>
        <div className="chat-tool-body">
          {entry.arguments && entry.arguments !== '{}' && (
            <div>
              <h4>Arguments</h4>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
              <pre className="chat-pre" tabIndex={0}>
                {pretty(entry.arguments)}
              </pre>
            </div>
          )}
          {running && <CallProgress progress={entry.progress} />}
          <CallNotices notices={entry.notices} />
          {entry.fileActivity && entry.fileActivity.length > 0 && (
            <div>
              <h4>Your files the tool read</h4>
              <ol className="file-activity" data-testid="chat-tool-file-activity">
                {entry.fileActivity.map((line) => (
                  <li key={line.seq} className={line.ok ? 'file' : 'error'}>
                    {line.text}
                  </li>
                ))}
              </ol>
            </div>
          )}
          {entry.error && (
            <FriendlyErrorBox
              error={{
                title: errorTitle(entry.error.code),
                message: entry.error.message,
                code: entry.error.code,
                ...(facts.retryable === undefined ? {} : { retryable: facts.retryable }),
              }}
            />
          )}
          {facts.metaData && <MetaDataTable metaData={facts.metaData} />}
          {facts.metaDataNote && <p className="muted small">{facts.metaDataNote}</p>}
          {entry.content !== undefined && (
            <div>
              <h4>Result (what the model read)</h4>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
              <pre className="chat-pre" data-testid="chat-tool-result" tabIndex={0}>
                {shorten(pretty(entry.content))}
              </pre>
            </div>
          )}
        </div>
      </details>
      {/* Visible when the card is folded, as the files: what the user has to do next. */}
      {entry.error?.code === AUTH_REQUIRED && entry.server && (
        <ConnectPrompt server={entry.server} connectUrl={oauthStartPath(entry.server)} />
      )}
      {/* A tool with an MCP App: its view opens in the canvas (by itself while the call runs). */}
      <AppLauncher
        server={entry.server}
        tool={entry.tool}
        callId={entry.callId}
        argumentsText={entry.arguments}
        // Streamed in this page, not only while running: a fast call's started and finished
        // events may arrive together, and its card is then never drawn running.
        live={running || entry.streamed === true}
      />
      {/* The files stay visible when the card is folded: they are what the user came for. */}
      <FileChips files={entry.files} onOpen={onOpen} />
    </article>
  );
}
