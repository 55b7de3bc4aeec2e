// A tool asks the user something mid-call (MCP elicitation): the message, a form generated from
// requestedSchema (x-mcp-file fields become file pickers, answered with My Files ids in `files`,
// which the host turns into data URIs), and accept / decline / cancel. A link to open (URL mode)
// has its own dialog, link-elicitation-dialog.tsx.
import { type FormEvent, useMemo, useState } from 'react';
import { api } from '../api/client';
import { buildArguments, type FormValues, initialValues } from '../lib/build-arguments';
import { elicitationFields, type PendingElicitation } from '../lib/elicitation-fields';
import { SchemaForm } from '../runner/schema-form';
import { LinkElicitationDialog } from './link-elicitation-dialog';
import { ModalDialog } from './modal-dialog';

type Action = 'accept' | 'decline' | 'cancel';

interface DialogProps {
  request: PendingElicitation;
  onDone(elicitationId: string): void;
}

export function ElicitationDialog(props: DialogProps) {
  return props.request.mode === 'url' ? (
    <LinkElicitationDialog {...props} />
  ) : (
    <FormElicitationDialog {...props} />
  );
}

function FormElicitationDialog({ request, onDone }: DialogProps) {
  const fields = useMemo(() => elicitationFields(request), [request]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const answer = async (action: Action) => {
    let body: Record<string, unknown> = { action };
    if (action === 'accept') {
      const built = buildArguments(fields, values);
      setErrors(built.errors);
      if (Object.keys(built.errors).length > 0) return;
      body = {
        action,
        content: built.values,
        ...(Object.keys(built.files).length ? { files: built.files } : {}),
      };
    }
    setSending(true);
    try {
      await api(
        `/api/calls/${encodeURIComponent(request.callId)}/elicitations/${encodeURIComponent(request.elicitationId)}`,
        { method: 'POST', json: body },
      );
      onDone(request.elicitationId);
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setSending(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void answer('accept');
  };
  return (
    <ModalDialog
      title="The tool needs your input"
      onClose={() => void answer('cancel')}
      className="elicitation"
    >
      <form onSubmit={submit} className="stack" aria-label="Answer the tool" data-testid="elicitation-form">
        <p className="elicitation-message">{request.message}</p>
        <SchemaForm fields={fields} values={values} onChange={setValues} errors={errors} />
        {failure && (
          <p className="form-error" role="alert">
            Could not send the answer: {failure}
          </p>
        )}
        <div className="row end">
          <button type="button" onClick={() => void answer('cancel')} disabled={sending}>
            Cancel
          </button>
          <button type="button" onClick={() => void answer('decline')} disabled={sending}>
            Decline
          </button>
          <button type="submit" className="primary" disabled={sending}>
            Send
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
