// What an MCP App asks of the user: opening a link, adding a message, or the files a tool it calls
// takes (x-mcp-file inputs, picked from My Files with the runner's picker). Nothing happens
// without the user's yes; closing the dialog is a no, answered to the app as an error.
import { inspectElicitationLink } from '@ferry/contract';
import { type FormEvent, useMemo, useState } from 'react';
import { ModalDialog } from '../components/modal-dialog';
import type { FieldSpec } from '../lib/schema-fields';
import { FileField } from '../runner/file-field';

export type AppAsk =
  | { kind: 'link'; url: string; resolve(ok: boolean): void }
  | { kind: 'message'; text: string; resolve(ok: boolean): void }
  | {
      kind: 'files';
      tool: string;
      fields: FieldSpec[];
      resolve(picked: Record<string, string | string[]> | null): void;
    };

export function AppAskDialog({ ask, appTitle }: { ask: AppAsk; appTitle: string }) {
  if (ask.kind === 'files') return <PickFilesDialog ask={ask} appTitle={appTitle} />;
  const no = () => ask.resolve(false);
  return (
    <ModalDialog
      title={ask.kind === 'link' ? 'The app asks you to open a link' : 'The app wants to add a message'}
      onClose={no}
      className="app-ask"
    >
      <div className="stack" data-testid="app-ask">
        <p>
          <strong>{appTitle}</strong>{' '}
          {ask.kind === 'link' ? 'asks to open this link in a new tab:' : 'wants to add this message:'}
        </p>
        {ask.kind === 'link' ? (
          <LinkPreview url={ask.url} />
        ) : (
          <blockquote data-testid="app-ask-text">{ask.text}</blockquote>
        )}
        <div className="row">
          <button
            type="button"
            className="primary"
            data-testid="app-ask-allow"
            disabled={ask.kind === 'link' && !inspectElicitationLink(ask.url).ok}
            onClick={() => ask.resolve(true)}
          >
            {ask.kind === 'link' ? 'Open link' : 'Add message'}
          </button>
          <button type="button" data-testid="app-ask-deny" onClick={no}>
            Deny
          </button>
        </div>
      </div>
    </ModalDialog>
  );
}

function LinkPreview({ url }: { url: string }) {
  const link = useMemo(() => inspectElicitationLink(url), [url]);
  if (!link.ok)
    return (
      <p className="form-error" role="alert">
        Ferry will not open <code>{url}</code>: {link.reason}.
      </p>
    );
  return (
    <>
      <p className="elicitation-url" data-testid="app-ask-url">
        <code>
          {link.parts.before}
          <mark className="elicitation-host">{link.parts.host}</mark>
          {link.parts.after}
        </code>
      </p>
      {link.warnings.map((warning) => (
        <p key={warning} className="muted">
          {warning}
        </p>
      ))}
    </>
  );
}

function PickFilesDialog({ ask, appTitle }: { ask: Extract<AppAsk, { kind: 'files' }>; appTitle: string }) {
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const picked: Record<string, string | string[]> = {};
    for (const field of ask.fields) {
      const value = values[field.name];
      const ids = Array.isArray(value) ? (value as string[]) : value ? [String(value)] : [];
      if (ids.length === 0) {
        if (field.required) {
          setError(`Pick a file for ${field.label}.`);
          return;
        }
        continue;
      }
      picked[field.name] = field.multiple ? ids : (ids[0] as string);
    }
    ask.resolve(picked);
  };
  return (
    <ModalDialog title="The app needs a file" onClose={() => ask.resolve(null)} className="app-ask">
      <form className="stack" onSubmit={submit} data-testid="app-pick-files">
        <p>
          <strong>{appTitle}</strong> runs <code>{ask.tool}</code>, which takes a file from My Files. Only
          what you pick is sent.
        </p>
        {ask.fields.map((field) => (
          <div key={field.name} className="field">
            <span>{field.label}</span>
            <FileField
              field={field}
              value={values[field.name]}
              onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
              error={error ?? undefined}
            />
          </div>
        ))}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="row">
          <button type="submit" className="primary" data-testid="app-pick-send">
            Send to the app's tool
          </button>
          <button type="button" onClick={() => ask.resolve(null)}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
