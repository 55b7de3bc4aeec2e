// JSON Schema (a tool's inputSchema or an elicitation's requestedSchema) → the fields of a form.
// Injected parameters the host fills are hidden; file parameters become pickers: `filename`/
// `filenames` pick names from My Files, `x-mcp-file` properties pick files sent as fileInputs.
// Anything the form cannot express (oneOf, $ref, tuples…) falls back to a JSON text field.
import { fieldLabel, MCP_FILE_KEYWORD } from '@ferry/contract';

export type FieldKind =
  | 'string'
  | 'text'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'array'
  | 'object'
  | 'json'
  | 'file-name'
  | 'file-names'
  | 'file-picker';

export interface FieldSpec {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  kind: FieldKind;
  enumValues?: unknown[];
  defaultValue?: unknown;
  /** array: the item's field; object: the properties. */
  item?: FieldSpec;
  properties?: FieldSpec[];
  /** file-picker / file-name(s): MIME types or extensions the file must match. */
  accept?: string[];
  maxSize?: number;
  multiple?: boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
}

export interface InjectedInfo {
  name: string;
  input: 'host' | 'file-name' | 'file-names' | 'file-picker';
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fileDescriptor(schema: Schema): { accept?: string[]; maxSize?: number } | undefined {
  const descriptor = schema[MCP_FILE_KEYWORD];
  if (descriptor === undefined) return undefined;
  if (!isSchema(descriptor)) return {};
  const accept = Array.isArray(descriptor.accept)
    ? descriptor.accept.filter((a): a is string => typeof a === 'string')
    : undefined;
  const maxSize = typeof descriptor.maxSize === 'number' ? descriptor.maxSize : undefined;
  return { ...(accept ? { accept } : {}), ...(maxSize === undefined ? {} : { maxSize }) };
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  // ["string", "null"]: the non-null type.
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') as string | undefined;
  if (Array.isArray(schema.enum)) return 'enum';
  if (isSchema(schema.properties)) return 'object';
  return undefined;
}

function describeField(name: string, schema: Schema, required: boolean, depth = 0): FieldSpec {
  const base: FieldSpec = {
    name,
    label: fieldLabel(name, schema),
    required,
    kind: 'json',
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(schema.default === undefined ? {} : { defaultValue: schema.default }),
  };
  const file = fileDescriptor(schema);
  if (file) return { ...base, ...file, kind: 'file-picker', multiple: false };
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return { ...base, kind: 'enum', enumValues: schema.enum };
  if (Array.isArray(schema.oneOf) && schema.oneOf.every((o) => isSchema(o) && 'const' in o)) {
    return { ...base, kind: 'enum', enumValues: (schema.oneOf as Schema[]).map((o) => o.const) };
  }
  const type = typeOf(schema);
  const numeric = {
    ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
  };
  switch (type) {
    case 'string': {
      const long = typeof schema.maxLength !== 'number' || schema.maxLength > 200;
      const multiline =
        schema.format === 'textarea' || (long && /text|body|content|markdown|code/i.test(name));
      return {
        ...base,
        kind: multiline ? 'text' : 'string',
        ...(typeof schema.format === 'string' ? { format: schema.format } : {}),
      };
    }
    case 'number':
      return { ...base, kind: 'number', ...numeric };
    case 'integer':
      return { ...base, kind: 'integer', ...numeric };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'array': {
      const items = isSchema(schema.items) ? schema.items : undefined;
      const itemFile = items ? fileDescriptor(items) : undefined;
      if (itemFile) return { ...base, ...itemFile, kind: 'file-picker', multiple: true };
      if (!items || depth > 4) return base;
      return { ...base, kind: 'array', item: describeField('item', items, true, depth + 1) };
    }
    case 'object': {
      if (!isSchema(schema.properties) || depth > 4) return base;
      return { ...base, kind: 'object', properties: describeFields(schema, [], depth + 1) };
    }
    default:
      return base;
  }
}

/**
 * The fields of an object schema, in declaration order, injected parameters applied: `host`
 * ones are dropped, the file ones become pickers (x-mcp-file keeps its accept/maxSize).
 */
export function describeFields(
  schema: Schema,
  injected: readonly InjectedInfo[] = [],
  depth = 0,
): FieldSpec[] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const byName = new Map(injected.map((param) => [param.name, param]));
  const fields: FieldSpec[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isSchema(raw)) continue;
    const param = depth === 0 ? byName.get(name) : undefined;
    if (param?.input === 'host') continue;
    const field = describeField(name, raw, required.has(name), depth);
    if (param?.input === 'file-name') fields.push({ ...field, kind: 'file-name', multiple: false });
    else if (param?.input === 'file-names') fields.push({ ...field, kind: 'file-names', multiple: true });
    else if (param?.input === 'file-picker' && field.kind !== 'file-picker') {
      fields.push({ ...field, kind: 'file-picker', multiple: typeOf(raw) === 'array' });
    } else fields.push(field);
  }
  return fields;
}
