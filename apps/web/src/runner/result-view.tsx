// A settled call: the results as a tree, errors as a friendly box with the suggestion, the files
// it stored as chips that open on the canvas, and whatever was rejected or not stored.
import type { ToolCallResponse, UiFile } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { JsonTree } from '../components/json-tree';
import { type FriendlyError, friendlyFromEnvelope } from '../lib/friendly-error';

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
  if (response.forModel.error) return friendlyFromEnvelope(response.forModel.error);
  // A tool that answers a v2.1 error envelope as its results.
  if (response.forModel.isError) return friendlyFromEnvelope(response.forModel.results);
  return undefined;
}

export function ResultView({ response, onOpen }: { response: ToolCallResponse; onOpen(file: UiFile): void }) {
  const error = errorOf(response);
  const { forUi } = response;
  return (
    <div className="result-view" data-testid="call-result">
      {error && <FriendlyErrorBox error={error} />}
      {!error && response.forModel.results !== undefined && (
        <section aria-label="Results">
          <h4>Results</h4>
          <JsonTree value={response.forModel.results} />
        </section>
      )}
      <FileChips files={forUi.files} onOpen={onOpen} />
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
