// Form values → the call's `arguments` and `fileInputs` (or an elicitation's `content` and
// `files`), with per-field problems. Form state keeps what the user typed (numbers as text), so
// conversion and validation happen here, once, when the form is sent.
import type { FieldSpec } from './schema-fields';

export type FormValues = Record<string, unknown>;

export interface BuiltArguments {
  values: Record<string, unknown>;
  /** file-picker fields: My Files ids. */
  files: Record<string, string | string[]>;
  errors: Record<string, string>;
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** The initial value of a field: its schema default, else empty of the right shape. */
export function initialValue(field: FieldSpec): unknown {
  if (field.defaultValue !== undefined) {
    if (field.kind === 'number' || field.kind === 'integer') return String(field.defaultValue);
    if (field.kind === 'json') return JSON.stringify(field.defaultValue, null, 2);
    return field.defaultValue;
  }
  switch (field.kind) {
    case 'boolean':
      return false;
    case 'array':
    case 'file-names':
      return [];
    case 'file-picker':
      return field.multiple ? [] : '';
    case 'object':
      return initialValues(field.properties ?? []);
    default:
      return '';
  }
}

export function initialValues(fields: readonly FieldSpec[]): FormValues {
  return Object.fromEntries(fields.map((field) => [field.name, initialValue(field)]));
}

/** Converts one value; returns `undefined` to leave an optional field out. Throws a message. */
function convert(field: FieldSpec, value: unknown, errors: Record<string, string>, path: string): unknown {
  if (field.kind === 'boolean') return Boolean(value);
  if (field.kind === 'object') {
    const inner = buildFields(field.properties ?? [], (value ?? {}) as FormValues, errors, `${path}.`);
    return Object.keys(inner).length === 0 && !field.required ? undefined : inner;
  }
  if (isEmpty(value)) {
    if (field.required) throw new Error('Required');
    return undefined;
  }
  switch (field.kind) {
    case 'number':
    case 'integer': {
      const number = Number(String(value).trim());
      if (!Number.isFinite(number)) throw new Error('Enter a number');
      if (field.kind === 'integer' && !Number.isInteger(number)) throw new Error('Enter a whole number');
      if (field.minimum !== undefined && number < field.minimum) throw new Error(`At least ${field.minimum}`);
      if (field.maximum !== undefined && number > field.maximum) throw new Error(`At most ${field.maximum}`);
      return number;
    }
    case 'json':
      try {
        return JSON.parse(String(value));
      } catch {
        throw new Error('Enter valid JSON');
      }
    case 'enum': {
      // <select> values are strings; give back the schema's own value (numbers stay numbers).
      const match = field.enumValues?.find((option) => String(option) === String(value));
      if (match === undefined) throw new Error('Pick one of the options');
      return match;
    }
    case 'array': {
      const item = field.item;
      if (!item || !Array.isArray(value)) return undefined;
      // Each entry's problem is reported on the entry, where the form shows it.
      const out: unknown[] = [];
      value.forEach((entry, index) => {
        try {
          const converted = convert({ ...item, required: true }, entry, errors, `${path}[${index}]`);
          if (converted !== undefined) out.push(converted);
        } catch (error) {
          errors[`${path}[${index}]`] = (error as Error).message;
        }
      });
      return out;
    }
    default:
      return value;
  }
}

function buildFields(
  fields: readonly FieldSpec[],
  values: FormValues,
  errors: Record<string, string>,
  prefix = '',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.kind === 'file-picker') continue;
    const path = `${prefix}${field.name}`;
    try {
      const converted = convert(field, values[field.name], errors, path);
      if (converted !== undefined) out[field.name] = converted;
    } catch (error) {
      errors[path] = (error as Error).message;
    }
  }
  return out;
}

export function buildArguments(fields: readonly FieldSpec[], values: FormValues): BuiltArguments {
  const errors: Record<string, string> = {};
  const built = buildFields(fields, values, errors);
  const files: Record<string, string | string[]> = {};
  for (const field of fields) {
    if (field.kind !== 'file-picker') continue;
    const value = values[field.name];
    if (isEmpty(value)) {
      if (field.required) errors[field.name] = 'Pick a file';
      continue;
    }
    files[field.name] = Array.isArray(value) ? (value as string[]) : String(value);
  }
  return { values: built, files, errors };
}
