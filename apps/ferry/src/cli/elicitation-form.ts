// A server's question during `ferry call` (MCP elicitation, form mode) asked in the terminal: the
// requestedSchema's fields (the MCP form subset: string with format/length, number, integer,
// boolean, single and multi-select enums, and SEP-2356 x-mcp-file fields) become one prompt each,
// checked here and asked again on a bad answer. The same rules as the host's bridge
// (packages/host/src/pipeline/elicitation-bridge.ts), so an answer the CLI sends fits the form.
import {
  type CallEvent,
  type ElicitationAnswer,
  fieldLabel,
  formatBytes,
  MCP_FILE_KEYWORD,
} from '@ferry/contract';
import type { LineSource } from './line-source.js';

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi-enum' | 'file';

export interface FormField {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  kind: FieldKind;
  defaultValue?: unknown;
  /** enum / multi-enum: the values and what to show for them. */
  options?: { value: string; title: string }[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  /** file: x-mcp-file's accept and maxSize; several files for an array field. */
  accept?: string[];
  maxSize?: number;
  multiple?: boolean;
}

/** What the CLI asks from an `elicitation` call event (a form, or a link to open: `mode: 'url'`). */
export type ElicitationQuestion = Pick<
  Extract<CallEvent, { type: 'elicitation' }>,
  'elicitationId' | 'message' | 'requestedSchema' | 'fileFields' | 'mode' | 'url' | 'server'
>;

export type ContentValue = NonNullable<ElicitationAnswer['content']>[string];

export type FormOutcome =
  | {
      action: 'accept';
      content: Record<string, ContentValue>;
      files: NonNullable<ElicitationAnswer['files']>;
    }
  | { action: 'decline' }
  | { action: 'cancel' };

/** A file answer (a path to upload, a My Files id or name) resolved to a My Files file. */
export type FileResolver = (
  answer: string,
  field: FormField,
  signal?: AbortSignal,
) => Promise<{ ok: true; id: string; name: string } | { ok: false; reason: string }>;

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}

/** enum (+ legacy enumNames), or oneOf/anyOf of `{ const, title }` (titled choices). */
function optionsOf(schema: Schema): { value: string; title: string }[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum
      .map((value, index) => ({ value, title: names[index] }))
      .filter((o): o is { value: string; title: unknown } => typeof o.value === 'string')
      .map((o) => ({ value: o.value, title: typeof o.title === 'string' ? o.title : o.value }));
  }
  const choices = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  const options = choices
    .filter(isSchema)
    .filter((c): c is Schema & { const: string } => typeof c.const === 'string')
    .map((c) => ({ value: c.const, title: typeof c.title === 'string' ? c.title : c.const }));
  return options.length > 0 ? options : undefined;
}

const numberOf = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The form's fields in declaration order; the host's fileFields mark the file fields. */
export function formFields(
  question: Pick<ElicitationQuestion, 'requestedSchema' | 'fileFields'>,
): FormField[] {
  const schema = question.requestedSchema;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields: FormField[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isSchema(raw)) continue;
    const type = typeOf(raw);
    const items = isSchema(raw.items) ? raw.items : undefined;
    const base = {
      name,
      label: fieldLabel(name, raw),
      required: required.has(name),
      ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
      ...(raw.default === undefined ? {} : { defaultValue: raw.default }),
    };
    const file = question.fileFields.find((f) => f.name === name);
    if (file || MCP_FILE_KEYWORD in raw || (items && MCP_FILE_KEYWORD in items)) {
      const descriptor = isSchema(raw[MCP_FILE_KEYWORD])
        ? raw[MCP_FILE_KEYWORD]
        : items && isSchema(items[MCP_FILE_KEYWORD])
          ? items[MCP_FILE_KEYWORD]
          : {};
      const accept = file?.accept ?? (Array.isArray(descriptor.accept) ? descriptor.accept : undefined);
      const maxSize = file?.maxSize ?? numberOf(descriptor.maxSize);
      fields.push({
        ...base,
        kind: 'file',
        required: base.required || file?.required === true,
        multiple: type === 'array',
        ...(accept ? { accept: accept.filter((a): a is string => typeof a === 'string') } : {}),
        ...(maxSize === undefined ? {} : { maxSize }),
      });
      continue;
    }
    const options = optionsOf(raw);
    if (type === 'array' && items) {
      const itemOptions = optionsOf(items);
      if (itemOptions) {
        fields.push({
          ...base,
          kind: 'multi-enum',
          options: itemOptions,
          ...(numberOf(raw.minItems) === undefined ? {} : { minItems: raw.minItems as number }),
          ...(numberOf(raw.maxItems) === undefined ? {} : { maxItems: raw.maxItems as number }),
        });
        continue;
      }
    }
    if (options) {
      fields.push({ ...base, kind: 'enum', options });
      continue;
    }
    const limits = {
      ...(numberOf(raw.minimum) === undefined ? {} : { minimum: raw.minimum as number }),
      ...(numberOf(raw.maximum) === undefined ? {} : { maximum: raw.maximum as number }),
    };
    if (type === 'number' || type === 'integer') fields.push({ ...base, kind: type, ...limits });
    else if (type === 'boolean') fields.push({ ...base, kind: 'boolean' });
    else
      fields.push({
        ...base,
        kind: 'string',
        ...(typeof raw.format === 'string' ? { format: raw.format } : {}),
        ...(numberOf(raw.minLength) === undefined ? {} : { minLength: raw.minLength as number }),
        ...(numberOf(raw.maxLength) === undefined ? {} : { maxLength: raw.maxLength as number }),
      });
  }
  return fields;
}

/** What the prompt says the field wants. */
function describeExpected(field: FormField): string {
  const parts: string[] = [];
  switch (field.kind) {
    case 'file':
      parts.push(
        field.multiple
          ? 'files: local paths or My Files ids/names, one per line, empty line to finish'
          : 'file: a local path to upload, or a My Files id or name',
      );
      if (field.accept?.length) parts.push(field.accept.join(', '));
      if (field.maxSize !== undefined) parts.push(`at most ${formatBytes(field.maxSize)}`);
      break;
    case 'boolean':
      parts.push('y/n');
      break;
    case 'enum':
      parts.push('number or value');
      break;
    case 'multi-enum':
      parts.push('numbers or values, comma-separated');
      if (field.minItems !== undefined) parts.push(`at least ${field.minItems}`);
      if (field.maxItems !== undefined) parts.push(`at most ${field.maxItems}`);
      break;
    case 'number':
    case 'integer':
      parts.push(field.kind);
      if (field.minimum !== undefined && field.maximum !== undefined)
        parts.push(`${field.minimum} to ${field.maximum}`);
      else if (field.minimum !== undefined) parts.push(`≥ ${field.minimum}`);
      else if (field.maximum !== undefined) parts.push(`≤ ${field.maximum}`);
      break;
    default:
      parts.push(field.format ?? 'text');
      if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
      if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
  }
  if (!field.required) parts.push('optional');
  return parts.join('; ');
}

function showDefault(field: FormField): string {
  const value = field.defaultValue;
  if (value === undefined) return '';
  if (field.kind === 'boolean') return value === true ? ' [y]' : ' [n]';
  if (Array.isArray(value)) return ` [${value.join(', ')}]`;
  return ` [${String(value)}]`;
}

type Parsed = { ok: true; value: ContentValue } | { ok: false; reason: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function pickOption(field: FormField, text: string): string | undefined {
  const options = field.options ?? [];
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  const byIndex = options[index];
  // A value that is itself a number wins over the position.
  const exact = options.find((o) => o.value === text);
  if (exact) return exact.value;
  if (byIndex) return byIndex.value;
  const lower = text.toLowerCase();
  return options.find((o) => o.value.toLowerCase() === lower || o.title.toLowerCase() === lower)?.value;
}

/** A typed answer (not empty) to a plain field: its value, or why it does not fit. */
export function parseAnswer(field: FormField, text: string): Parsed {
  switch (field.kind) {
    case 'boolean': {
      const lower = text.toLowerCase();
      if (['y', 'yes', 'true', '1', 'on'].includes(lower)) return { ok: true, value: true };
      if (['n', 'no', 'false', '0', 'off'].includes(lower)) return { ok: true, value: false };
      return { ok: false, reason: 'answer y or n' };
    }
    case 'number':
    case 'integer': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value))
        return { ok: false, reason: `must be a ${field.kind}` };
      if (field.kind === 'integer' && !Number.isInteger(value))
        return { ok: false, reason: 'must be an integer' };
      if (field.minimum !== undefined && value < field.minimum)
        return { ok: false, reason: `must be at least ${field.minimum}` };
      if (field.maximum !== undefined && value > field.maximum)
        return { ok: false, reason: `must be at most ${field.maximum}` };
      return { ok: true, value };
    }
    case 'enum': {
      const value = pickOption(field, text);
      return value === undefined
        ? { ok: false, reason: `must be one of ${(field.options ?? []).map((o) => o.value).join(', ')}` }
        : { ok: true, value };
    }
    case 'multi-enum': {
      const picked: string[] = [];
      for (const part of text
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const value = pickOption(field, part);
        if (value === undefined)
          return {
            ok: false,
            reason: `"${part}" is not one of ${(field.options ?? []).map((o) => o.value).join(', ')}`,
          };
        if (!picked.includes(value)) picked.push(value);
      }
      if (field.minItems !== undefined && picked.length < field.minItems)
        return { ok: false, reason: `pick at least ${field.minItems}` };
      if (field.maxItems !== undefined && picked.length > field.maxItems)
        return { ok: false, reason: `pick at most ${field.maxItems}` };
      return { ok: true, value: picked };
    }
    default: {
      if (field.minLength !== undefined && text.length < field.minLength)
        return { ok: false, reason: `must be at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength)
        return { ok: false, reason: `must be at most ${field.maxLength} characters` };
      if (field.format === 'email' && !EMAIL.test(text))
        return { ok: false, reason: 'must be an email address' };
      if (field.format === 'uri' && !URL.canParse(text)) return { ok: false, reason: 'must be a URI' };
      if (field.format === 'date' && !validDate(text))
        return { ok: false, reason: 'must be a date (YYYY-MM-DD)' };
      if (
        field.format === 'date-time' &&
        !(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) && !Number.isNaN(Date.parse(text)))
      )
        return { ok: false, reason: 'must be a date and time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM])' };
      return { ok: true, value: text };
    }
  }
}

/** The default as the server declared it, when it fits the field (a bad default is not sent). */
function defaultOf(field: FormField): ContentValue | undefined {
  const value = field.defaultValue;
  if (value === undefined) return undefined;
  if (field.kind === 'multi-enum')
    return Array.isArray(value) && value.every((v) => typeof v === 'string')
      ? (value as string[])
      : undefined;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
    const parsed = parseAnswer(field, String(value));
    return parsed.ok ? parsed.value : undefined;
  }
  return undefined;
}

export const HOW_TO_ANSWER =
  'Enter takes the [default] or skips an optional field; type !decline to decline or !cancel to cancel; end of input (Ctrl-D) declines.';

type Control = 'decline' | 'cancel' | 'aborted';

function control(line: string | null, signal?: AbortSignal): Control | undefined {
  if (signal?.aborted) return 'aborted';
  if (line === null) return 'decline';
  const command = line.trim().toLowerCase();
  if (command === '!decline') return 'decline';
  if (command === '!cancel') return 'cancel';
  return undefined;
}

/** `!!x` is the literal `!x`, for a value that starts with `!`. */
const literal = (line: string) => (line.startsWith('!!') ? line.slice(1) : line);

export interface AskFormOptions {
  lines: LineSource;
  resolveFile: FileResolver;
  signal?: AbortSignal;
  /** Ask only these fields (after the server refused one), keeping the other answers. */
  only?: string[];
  previous?: Extract<FormOutcome, { action: 'accept' }>;
}

/**
 * Asks every field; resolves with the answer to send, or `decline`/`cancel` as the user chose
 * (`cancel` too when `signal` aborts: the call ended or the question was answered elsewhere).
 */
export async function askForm(fields: FormField[], options: AskFormOptions): Promise<FormOutcome> {
  const { lines, signal } = options;
  const content: Record<string, ContentValue> = { ...options.previous?.content };
  const files: Record<string, string | string[]> = { ...options.previous?.files };
  const stop = (how: Control): FormOutcome => ({ action: how === 'decline' ? 'decline' : 'cancel' });

  for (const field of fields) {
    if (options.only && !options.only.includes(field.name)) continue;
    delete content[field.name];
    delete files[field.name];
    if (field.description) lines.say(`  ${field.label}: ${field.description}`);
    if (field.kind === 'enum' || field.kind === 'multi-enum') {
      const list = (field.options ?? [])
        .map((o, i) => `${i + 1}) ${o.title === o.value ? o.value : `${o.title} (${o.value})`}`)
        .join('  ');
      lines.say(`    ${list}`);
    }
    const prompt = `  ${field.label} (${describeExpected(field)})${showDefault(field)}: `;

    if (field.kind === 'file') {
      const ids: string[] = [];
      for (;;) {
        const query = field.multiple
          ? `  ${field.label} #${ids.length + 1} (${describeExpected(field)}): `
          : prompt;
        const line = await lines.ask(query, signal);
        const how = control(line, signal);
        if (how) return stop(how);
        const text = literal((line as string).trim());
        if (text === '') {
          if (field.multiple && ids.length > 0) break;
          if (!field.required) break;
          lines.say('    ! required: give a file (or !decline / !cancel)');
          continue;
        }
        const resolved = await options.resolveFile(text, field, signal);
        if (signal?.aborted) return stop('aborted');
        if (!resolved.ok) {
          lines.say(`    ! ${resolved.reason}`);
          continue;
        }
        lines.say(`    using ${resolved.name} (${resolved.id})`);
        ids.push(resolved.id);
        if (!field.multiple) break;
      }
      if (ids.length > 0) files[field.name] = field.multiple ? ids : (ids[0] as string);
      continue;
    }

    for (;;) {
      const line = await lines.ask(prompt, signal);
      const how = control(line, signal);
      if (how) return stop(how);
      const text = literal(line as string);
      if (text.trim() === '') {
        const fallback = defaultOf(field);
        if (fallback !== undefined) content[field.name] = fallback;
        else if (field.required) {
          lines.say('    ! required (or !decline / !cancel)');
          continue;
        }
        break;
      }
      const parsed = parseAnswer(field, field.kind === 'string' ? text : text.trim());
      if (!parsed.ok) {
        lines.say(`    ! ${parsed.reason}`);
        continue;
      }
      content[field.name] = parsed.value;
      break;
    }
  }
  return { action: 'accept', content, files };
}
