// A file parameter: pick from My Files (filtered by the field's accept list) or upload a new one,
// which is then picked. `filename`/`filenames` fields hold names (the host looks them up in My
// Files); x-mcp-file fields hold file ids (sent as fileInputs, the host makes the data URI).
import type { FileDto } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { useId, useRef } from 'react';
import { acceptsFile } from '../lib/file-sections';
import type { FieldSpec } from '../lib/schema-fields';
import { useApp } from '../state/app-context';

export function FileField({
  field,
  value,
  onChange,
  error,
  id: givenId,
}: {
  id?: string;
  field: FieldSpec;
  value: unknown;
  onChange(value: unknown): void;
  error?: string | undefined;
}) {
  const { files, uploads } = useApp();
  const generatedId = useId();
  const id = givenId ?? generatedId;
  const upload = useRef<HTMLInputElement>(null);
  const byId = field.kind === 'file-picker';
  const multiple = field.multiple === true;
  const candidates = files.filter(
    (file) => acceptsFile(file, field.accept) && (field.maxSize === undefined || file.size <= field.maxSize),
  );
  const keyOf = (file: FileDto) => (byId ? file.id : file.name);
  // By name, the newest version stands for all of them (the host resolves names the same way).
  const options = byId
    ? candidates
    : candidates.filter((file, i, all) => all.findIndex((f) => f.name === file.name) === i);
  const selected = new Set(Array.isArray(value) ? (value as string[]) : value ? [String(value)] : []);

  const pickUploaded = async (chosen: File[]) => {
    const stored = await uploads.add(chosen);
    const keys = stored.filter((file) => acceptsFile(file, field.accept)).map(keyOf);
    if (keys.length === 0) return;
    onChange(multiple ? [...selected, ...keys] : keys[0]);
  };

  const described = `${id}-hint`;
  const hint = [
    field.accept?.length ? `Accepts ${field.accept.join(', ')}` : '',
    field.maxSize !== undefined ? `at most ${formatBytes(field.maxSize)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <div className="file-field">
      {multiple ? (
        <fieldset className="file-choices" aria-describedby={described}>
          <legend className="sr-only">{field.label}</legend>
          {options.length === 0 && <p className="muted">No matching files in My Files yet.</p>}
          {options.map((file) => {
            const key = keyOf(file);
            return (
              <label key={file.id} className="check">
                <input
                  type="checkbox"
                  checked={selected.has(key)}
                  onChange={(event) => {
                    const next = new Set(selected);
                    if (event.target.checked) next.add(key);
                    else next.delete(key);
                    onChange([...next]);
                  }}
                />
                {file.name} <span className="muted">({formatBytes(file.size)})</span>
              </label>
            );
          })}
        </fieldset>
      ) : (
        <select
          id={id}
          data-field={field.name}
          aria-label={field.label}
          aria-describedby={described}
          aria-invalid={error ? true : undefined}
          value={value ? String(value) : ''}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">{options.length ? 'Choose a file…' : 'No matching files yet'}</option>
          {options.map((file) => (
            <option key={file.id} value={keyOf(file)}>
              {file.name}
              {byId && file.version > 1 ? ` (v${file.version})` : ''} · {formatBytes(file.size)}
            </option>
          ))}
        </select>
      )}
      <button type="button" className="small" onClick={() => upload.current?.click()}>
        Upload new…
      </button>
      <input
        ref={upload}
        type="file"
        hidden
        multiple={multiple}
        accept={field.accept?.join(',')}
        aria-label={`Upload a file for ${field.label}`}
        data-testid={`upload-for-${field.name}`}
        onChange={(event) => {
          const chosen = [...(event.target.files ?? [])];
          event.target.value = '';
          if (chosen.length) void pickUploaded(chosen);
        }}
      />
      <p id={described} className="hint">
        {hint}
      </p>
    </div>
  );
}
