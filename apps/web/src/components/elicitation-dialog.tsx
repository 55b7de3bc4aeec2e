// A tool asks the user something mid-call (MCP elicitation): the message, a form generated from
// requestedSchema (x-mcp-file fields become file pickers, answered with My Files ids in `files`,
// which the host turns into data URIs), and accept / decline / cancel. A link to open (URL mode)
// has its own dialog, link-elicitation-dialog.tsx.
import { type FormEvent, useMemo, useState } from 'react';
import { buildArguments, type FormValues, initialValues } from '../lib/build-arguments';
import { elicitationFields, type PendingElicitation } from '../lib/elicitation-fields';
import { SchemaForm } from '../runner/schema-form';
import { type ElicitationAction, ElicitationAnswerRow, useElicitationAnswer } from './elicitation-answer';
import { LinkElicitationDialog } from './link-elicitation-dialog';
import { ModalDialog } from './modal-dialog';

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
  const { failure, sending, send } = useElicitationAnswer(request, onDone);

  const answer = async (action: ElicitationAction) => {
    let body: { action: ElicitationAction } & Record<string, unknown> = { action };
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
    await send(body);
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
        <ElicitationAnswerRow failure={failure} sending={sending} onAnswer={(action) => void answer(action)}>
          <button type="submit" className="primary" disabled={sending}>
            Send
          </button>
        </ElicitationAnswerRow>
      </form>
    </ModalDialog>
  );
}
