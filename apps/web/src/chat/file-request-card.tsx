// A tool call paused for its SEP-2356 x-mcp-file inputs: the user picks the file from My Files
// (the tool runner's picker, filtered by the input's accept list and maxSize), or approves the one
// the model named, sees "file → server (tool)" for each, and sends or declines. Nothing leaves
// Ferry before Send (the SEP's host rule: the user sees which file goes to which server before it
// is sent). Once answered, the card says what was sent where, or that nothing was.
import type { FileRequestAnswer, FileRequestInput } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { useId, useState } from 'react';
import type { FieldSpec } from '../lib/schema-fields';
import { FileField } from '../runner/file-field';
import { useApp } from '../state/app-context';
import type { ToolEntry } from './chat-model';

type Picks = Record<string, string | string[]>;

function initialPicks(inputs: readonly FileRequestInput[]): Picks {
  const picks: Picks = {};
  for (const input of inputs) {
    const ids = input.proposed.map((file) => file.id);
    if (ids.length > 0) picks[input.name] = input.multiple ? ids : (ids[0] as string);
  }
  return picks;
}

const idsOf = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).filter((id) => id !== '');

function fieldOf(input: FileRequestInput): FieldSpec {
  return {
    name: input.name,
    label: input.description ? `${input.name}: ${input.description}` : input.name,
    required: input.required,
    kind: 'file-picker',
    multiple: input.multiple,
    ...(input.accept ? { accept: input.accept } : {}),
    ...(input.maxSize === undefined ? {} : { maxSize: input.maxSize }),
  };
}

export function FileRequestCard({
  entry,
  onAnswer,
}: {
  entry: ToolEntry;
  onAnswer(requestId: string, answer: FileRequestAnswer): Promise<string | null>;
}) {
  const server = entry.server ?? '';
  const tool = entry.tool ?? entry.name;
  if (entry.fileAnswer) return <AnsweredNote answer={entry.fileAnswer} server={server} tool={tool} />;
  if (!entry.fileRequest) return null;
  return (
    <PendingRequest
      // A new request of the same call (never today) starts from its own proposal.
      key={entry.fileRequest.requestId}
      request={entry.fileRequest}
      server={server}
      tool={tool}
      onAnswer={onAnswer}
    />
  );
}

function PendingRequest({
  request,
  server,
  tool,
  onAnswer,
}: {
  request: NonNullable<ToolEntry['fileRequest']>;
  server: string;
  tool: string;
  onAnswer(requestId: string, answer: FileRequestAnswer): Promise<string | null>;
}) {
  const { files } = useApp();
  const baseId = useId();
  const [picks, setPicks] = useState<Picks>(() => initialPicks(request.inputs));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const known = new Map<string, string>();
  for (const input of request.inputs) for (const file of input.proposed) known.set(file.id, file.name);
  for (const file of files) known.set(file.id, file.name);
  const routes = request.inputs.flatMap((input) =>
    idsOf(picks[input.name]).map((id) => ({ input: input.name, id, name: known.get(id) ?? id })),
  );
  const missing = request.inputs.filter((input) => input.required && idsOf(picks[input.name]).length === 0);
  const proposed = request.inputs.flatMap((input) => input.proposed.map((file) => file.name));

  const answer = async (body: FileRequestAnswer) => {
    setBusy(true);
    setError(null);
    const refused = await onAnswer(request.requestId, body);
    // On success the turn's `file_request_answered` event replaces this card.
    if (refused) {
      setError(refused);
      setBusy(false);
    }
  };
  const send = () => {
    const chosen: Picks = {};
    for (const input of request.inputs) {
      const ids = idsOf(picks[input.name]);
      if (ids.length > 0) chosen[input.name] = input.multiple ? ids : (ids[0] as string);
    }
    void answer({ action: 'accept', files: chosen });
  };

  return (
    <section
      className="chat-file-request"
      data-testid="chat-file-request"
      aria-label={`${server} › ${tool} needs a file`}
    >
      <h4>
        {server} › {tool} needs {request.inputs.length === 1 ? 'a file' : 'files'}
      </h4>
      <p className="muted small">
        {proposed.length > 0
          ? `The model chose ${proposed.join(', ')}. Nothing is sent until you send it; you may choose another file.`
          : 'Choose the file to send. Nothing is sent until you send it.'}
      </p>
      {request.inputs.map((input, i) => {
        const field = fieldOf(input);
        const id = `${baseId}-${i}`;
        return (
          <div key={input.name} className="chat-file-input">
            {/* A multi-file picker is a fieldset with its own legend: no control to label. */}
            {input.multiple ? (
              <span className="chat-file-label">{field.label}</span>
            ) : (
              <label htmlFor={id} className="chat-file-label">
                {field.label}
                {input.required ? '' : ' (optional)'}
              </label>
            )}
            <FileField
              id={id}
              field={field}
              value={picks[input.name] ?? (input.multiple ? [] : '')}
              onChange={(value) =>
                setPicks((current) => ({ ...current, [input.name]: value as string | string[] }))
              }
            />
          </div>
        );
      })}
      {routes.length > 0 && (
        <ul className="chat-file-routes" aria-label="What will be sent">
          {routes.map((route) => (
            <li key={`${route.input}-${route.id}`} data-testid="chat-file-route">
              <strong>{route.name}</strong> → server <strong>{server}</strong> (tool {tool}
              {request.inputs.length > 1 ? `, ${route.input}` : ''})
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="error-box" role="alert" data-testid="chat-file-error">
          {error}
        </p>
      )}
      <div className="chat-file-actions">
        <button
          type="button"
          className="primary"
          data-testid="chat-file-send"
          disabled={busy || missing.length > 0 || routes.length === 0}
          onClick={send}
        >
          Send to {server}
        </button>
        <button
          type="button"
          data-testid="chat-file-decline"
          disabled={busy}
          onClick={() => void answer({ action: 'decline' })}
        >
          Decline
        </button>
      </div>
    </section>
  );
}

function AnsweredNote({
  answer,
  server,
  tool,
}: {
  answer: NonNullable<ToolEntry['fileAnswer']>;
  server: string;
  tool: string;
}) {
  if (answer.action !== 'accept') {
    return (
      <p className="chat-file-sent muted small" data-testid="chat-file-sent">
        {answer.action === 'decline'
          ? `You declined: no file was sent to ${server}.`
          : `Stopped before a file was chosen: nothing was sent to ${server}.`}
      </p>
    );
  }
  return (
    <ul className="chat-file-sent chat-file-routes" data-testid="chat-file-sent" aria-label="Files sent">
      {answer.files.map((file) => (
        <li key={`${file.argument}-${file.id}`}>
          Sent <strong>{file.name}</strong> ({formatBytes(file.size)}) → server <strong>{server}</strong>{' '}
          (tool {tool})
        </li>
      ))}
    </ul>
  );
}
