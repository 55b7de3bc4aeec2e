// A settled call: the results as a tree, errors as a friendly box with the suggestion, the files
// it stored as chips that open on the canvas, and whatever was rejected or not stored. A result too
// large for the model was stored as a file: its beginning is shown, and the file opens on the canvas.
import type { ToolCallResponse, UiFile } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { JsonTree } from '../components/json-tree';
import { type FriendlyError, friendlyFromEnvelope } from '../lib/friendly-error';
import { authRequiredOf } from '../servers/auth-required';
import { ConnectPrompt } from '../servers/connect-prompt';
import { MetaDataTable } from './meta-data-table';

export function FriendlyErrorBox({ error }: { error: FriendlyError }) {
  return (
    <div className="error-box" role="alert" data-testid="call-error">
      <strong>{error.title}</strong>
      {error.message && <p>{error.message}</p>}
      {error.suggestion && (
        <p className="suggestion">
          <strong>Suggestion: </strong>
          {error.suggestion}
        </p>
      )}
      {error.code && (
        <p className="muted small">
          {error.code}
          {error.retryable ? ' · you can try again' : ''}
        </p>
      )}
    </div>
  );
}

export function FileChips({ files, onOpen }: { files: readonly UiFile[]; onOpen(file: UiFile): void }) {
  if (files.length === 0) return null;
  return (
    <ul className="file-chips" aria-label="Files from this call">
      {files.map((file) => (
        <li key={file.id}>
          <button
            type="button"
            className="chip"
            onClick={() => onOpen(file)}
            title={file.description ?? file.name}
          >
            {file.name} <span className="muted">{formatBytes(file.size)}</span>
            {file.deferred && <span className="badge">draft</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}

export function errorOf(response: ToolCallResponse): FriendlyError | undefined {
  const fromUi = friendlyFromEnvelope(response.forUi.error);
  if (fromUi) return fromUi;
  const modelError = response.forModel.error;
  if (modelError) {
    const friendly = friendlyFromEnvelope(modelError);
    return friendly && { ...friendly, retryable: modelError.retryable };
  }
  // A tool that answers a v2.1 error envelope as its results.
  if (response.forModel.isError) return friendlyFromEnvelope(response.forModel.results);
  return undefined;
}

/** The beginning of a result stored whole as a file, and the action that opens the file. */
function FullResult({
  file,
  results,
  onOpen,
}: {
  file: UiFile;
  results: unknown;
  onOpen(file: UiFile): void;
}) {
  const preview = (results as { preview?: unknown } | null)?.preview;
  return (
    <section aria-label="Results" data-testid="full-result">
      <h4>Results</h4>
      <p>
        Too large to show here: the full result ({formatBytes(file.size)}) is <strong>{file.name}</strong> in
        My Files.{' '}
        <button type="button" onClick={() => onOpen(file)}>
          Open full result
        </button>
      </p>
      {typeof preview === 'string' && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; the keyboard must reach it (axe scrollable-region-focusable)
        <pre className="code-block result-preview" tabIndex={0}>
          {preview}…
        </pre>
      )}
    </section>
  );
}

/**
 * A failure the same call may safely be run again after (v2.1 §12 `retryable`: a timeout, a server
 * that was down, a tool's transient error). A cancelled call is not one: the user stopped it.
 */
function isRetryableFailure(response: ToolCallResponse): boolean {
  const failed =
    response.status === 'failed' || (response.status === 'finished' && response.forModel.isError);
  return failed && response.forUi.retryable === true;
}

export function ResultView({
  response,
  server,
  onOpen,
  onRetry,
}: {
  response: ToolCallResponse;
  /** The call's server: named in the Connect prompt when the server wants the user's authorization. */
  server?: string;
  onOpen(file: UiFile): void;
  /** Runs the same call again (same arguments, a new call); offered on retryable failures only. */
  onRetry?(): void;
}) {
  const error = errorOf(response);
  // Running it again cannot help until the user has connected: Connect replaces Retry.
  const authRequired = authRequiredOf(response, server ?? '');
  const { forUi } = response;
  const fullResult = forUi.files.find((file) => file.fullResult);
  return (
    <div className="result-view" data-testid="call-result">
      {error && <FriendlyErrorBox error={error} />}
      {authRequired && (
        <ConnectPrompt
          server={authRequired.server}
          connectUrl={authRequired.connectUrl}
          scope={authRequired.scope}
        />
      )}
      {onRetry && !authRequired && isRetryableFailure(response) && (
        <div className="row">
          <button type="button" className="primary" onClick={onRetry} data-testid="retry-call">
            Retry
          </button>
        </div>
      )}
      {!error && fullResult && (
        <FullResult file={fullResult} results={response.forModel.results} onOpen={onOpen} />
      )}
      {!error && !fullResult && response.forModel.results !== undefined && (
        <section aria-label="Results">
          <h4>Results</h4>
          <JsonTree value={response.forModel.results} />
        </section>
      )}
      <FileChips files={forUi.files} onOpen={onOpen} />
      {forUi.metaData && <MetaDataTable metaData={forUi.metaData} />}
      {forUi.warnings.length > 0 && (
        <ul className="warnings">
          {forUi.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
      {[...forUi.rejected, ...forUi.unstored].length > 0 && (
        <details className="rejected">
          <summary>Files not stored ({forUi.rejected.length + forUi.unstored.length})</summary>
          <ul>
            {forUi.rejected.map((r) => (
              <li key={`${r.origin}-${r.name ?? r.code}`}>
                {r.name ?? r.origin}: {r.reason} ({r.code})
              </li>
            ))}
            {forUi.unstored.map((u) => (
              <li key={`${u.origin}-${u.name}`}>
                {u.name}: {u.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
