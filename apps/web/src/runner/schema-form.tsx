// The form for a list of fields (schema-fields.ts): one control per kind, labels tied to their
// inputs, the schema's description as the hint, and the problem of a field next to it.
import { useId } from 'react';
import { MarkdownInline } from '../components/markdown-inline';
import { type FormValues, initialValue } from '../lib/build-arguments';
import type { FieldSpec } from '../lib/schema-fields';
import { FileField } from './file-field';

interface FieldProps {
  field: FieldSpec;
  value: unknown;
  onChange(value: unknown): void;
  errors: Record<string, string>;
  path: string;
}

function Control({ field, value, onChange, errors, path, id }: FieldProps & { id: string }) {
  const error = errors[path];
  const common = { id, 'aria-invalid': error ? true : undefined, 'data-field': path } as const;
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          {...common}
          type="checkbox"
          checked={Boolean(value)}
          onChange={(event) => onChange(event.target.checked)}
        />
      );
    case 'enum':
      return (
        <select
          {...common}
          value={value === undefined ? '' : String(value)}
          onChange={(event) => onChange(event.target.value)}
        >
          {!field.required || value === '' ? <option value="">—</option> : null}
          {field.enumValues?.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      );
    case 'number':
    case 'integer':
      return (
        <input
          {...common}
          type="number"
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          step={field.kind === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          value={String(value ?? '')}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case 'text':
    case 'json':
      return (
        <textarea
          {...common}
          rows={field.kind === 'json' ? 4 : 3}
          className={field.kind === 'json' ? 'mono' : undefined}
          placeholder={field.kind === 'json' ? 'JSON' : undefined}
          value={String(value ?? '')}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case 'array': {
      const items = Array.isArray(value) ? value : [];
      const item = field.item as FieldSpec;
      return (
        <div className="array-field" id={id}>
          {items.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: list entries are positional
            <div className="array-item" key={index}>
              <FieldBlock
                field={{ ...item, label: `${field.label} ${index + 1}` }}
                value={entry}
                onChange={(next) => onChange(items.map((old, i) => (i === index ? next : old)))}
                errors={errors}
                path={`${path}[${index}]`}
              />
              <button
                type="button"
                className="small ghost"
                aria-label={`Remove ${field.label} ${index + 1}`}
                onClick={() => onChange(items.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" className="small" onClick={() => onChange([...items, initialValue(item)])}>
            Add {field.label.toLowerCase()}
          </button>
        </div>
      );
    }
    case 'object':
      return (
        <fieldset className="object-field" id={id}>
          <legend className="sr-only">{field.label}</legend>
          <SchemaForm
            fields={field.properties ?? []}
            values={(value ?? {}) as FormValues}
            onChange={onChange}
            errors={errors}
            prefix={`${path}.`}
          />
        </fieldset>
      );
    case 'file-name':
    case 'file-names':
    case 'file-picker':
      return <FileField id={id} field={field} value={value} onChange={onChange} error={error} />;
    default:
      return (
        <input
          {...common}
          type={field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : 'text'}
          value={String(value ?? '')}
          onChange={(event) => onChange(event.target.value)}
        />
      );
  }
}

function FieldBlock(props: FieldProps) {
  const id = useId();
  const { field, errors, path } = props;
  const error = errors[path];
  const inline = field.kind === 'boolean';
  return (
    <div className={`field${inline ? ' inline' : ''}`} data-kind={field.kind}>
      <label htmlFor={id}>
        {field.label}
        {field.required && <span aria-hidden="true"> *</span>}
        {field.required && <span className="sr-only"> (required)</span>}
      </label>
      <Control {...props} id={id} />
      {field.description && <MarkdownInline className="hint" text={field.description} />}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function SchemaForm({
  fields,
  values,
  onChange,
  errors,
  prefix = '',
}: {
  fields: readonly FieldSpec[];
  values: FormValues;
  onChange(values: FormValues): void;
  errors: Record<string, string>;
  prefix?: string;
}) {
  return (
    <div className="schema-form">
      {fields.length === 0 && <p className="muted">This tool takes no input.</p>}
      {fields.map((field) => (
        <FieldBlock
          key={field.name}
          field={field}
          value={values[field.name]}
          onChange={(value) => onChange({ ...values, [field.name]: value })}
          errors={errors}
          path={`${prefix}${field.name}`}
        />
      ))}
    </div>
  );
}
