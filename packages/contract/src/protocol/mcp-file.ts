// SEP-2356 `x-mcp-file`: the JSON Schema keyword marking a `{"type":"string","format":"uri"}`
// property of a tool's `inputSchema` or an elicitation `requestedSchema` as a file input.
// Finding the inputs, matching `accept`, checking `maxSize`, and hiding the inputs from the model.

import { z } from 'zod';
import { mimeEssence, OCTET_STREAM } from '../codecs/mime.js';
import type { FerryErrorCode } from '../wire/errors.js';
import { MCP_FILE_KEYWORD, matchesAccept } from './mcp-file-accept.js';

export { MCP_FILE_KEYWORD };

/**
 * SEP-2356 `FileInputDescriptor`. Unknown keys are dropped rather than rejected, so a later SEP
 * can add fields (its Future Work mentions `schemes`) without older hosts ignoring the input.
 */
export const McpFileDescriptorSchema = z.object({
  /** MIME types (`image/png`), wildcards (`image/*`, `*\/*`) and extensions (`.pdf`). */
  accept: z.array(z.string()).optional(),
  /** Maximum decoded size in bytes, per file (also per item of a multi-file input). */
  maxSize: z.number().int().positive().optional(),
});

export type McpFileDescriptor = z.infer<typeof McpFileDescriptorSchema>;

export interface FileInput {
  /** Property path from the schema root: `['image']`. Always one segment (see findFileInputs). */
  path: string[];
  /** An array of data URIs (`items` carry the keyword) rather than a single one. */
  multiple: boolean;
  descriptor: McpFileDescriptor;
  /** Listed in the root `required` array. */
  required: boolean;
}

export interface FileInputWarning {
  /** RFC 6901 JSON pointer to the schema that carries the ignored keyword. */
  pointer: string;
  reason: string;
}

export interface FindFileInputsOptions {
  /**
   * `elicitation` ignores multi-file arrays: SEP-2356 §Why not multi-file leaves array fields of
   * elicitation forms to a future SEP. @default 'tool'
   */
  surface?: 'tool' | 'elicitation';
}

export type FileCheckResult =
  | { ok: true }
  | { ok: false; code: Extract<FerryErrorCode, 'E_FILE_TYPE_REJECTED' | 'E_FILE_TOO_LARGE'>; reason: string };

/**
 * The file inputs of a JSON Schema object, in property order. Recognized: a root property
 * `{type: 'string', format: 'uri', 'x-mcp-file': …}`, and (tool surface) a root property
 * `{type: 'array', items: <that>}`, the placement SEP-2356 §Why not multi-file names. Only root
 * properties: the SEP speaks of arguments and form fields, and elicitation forms are flat.
 * A keyword anywhere else, on the wrong shape (SEP §The x-mcp-file extension keyword: clients
 * "SHOULD ignore the keyword") or with a malformed descriptor gives a warning and no input.
 */
export function findFileInputs(
  schema: unknown,
  options: FindFileInputsOptions = {},
): { inputs: FileInput[]; warnings: FileInputWarning[] } {
  const inputs: FileInput[] = [];
  const warnings: FileInputWarning[] = [];
  const claimed = new Set<object>();
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const required = isObject(schema) && Array.isArray(schema.required) ? schema.required : [];
  for (const [key, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    const items = property.type === 'array' && isObject(property.items) ? property.items : undefined;
    const carrier =
      MCP_FILE_KEYWORD in property ? property : items && MCP_FILE_KEYWORD in items ? items : undefined;
    if (!carrier) continue;
    claimed.add(carrier);
    const pointer = `/properties/${escapePointer(key)}${carrier === items ? '/items' : ''}`;
    const warn = (reason: string) => warnings.push({ pointer, reason });
    if (carrier.type !== 'string' || carrier.format !== 'uri') {
      const hint =
        carrier === property && property.type === 'array' ? '; for several files put it on items' : '';
      warn(`${MCP_FILE_KEYWORD} is only valid on {"type":"string","format":"uri"}${hint}`);
      continue;
    }
    if (carrier === items && options.surface === 'elicitation') {
      warn('multi-file fields are not part of SEP-2356 elicitation forms');
      continue;
    }
    const descriptor = McpFileDescriptorSchema.safeParse(carrier[MCP_FILE_KEYWORD]);
    if (!descriptor.success) {
      warn(`malformed ${MCP_FILE_KEYWORD}: ${descriptor.error.issues.map(describeIssue).join('; ')}`);
      continue;
    }
    inputs.push({
      path: [key],
      multiple: carrier === items,
      descriptor: descriptor.data,
      required: required.includes(key),
    });
  }
  walkSchemas(schema, '', new Set(), (node, pointer) => {
    if (MCP_FILE_KEYWORD in node && !claimed.has(node)) {
      warnings.push({
        pointer,
        reason: `${MCP_FILE_KEYWORD} is only recognized on a root property or its items`,
      });
    }
  });
  return { inputs, warnings };
}

/**
 * Checks one file against a descriptor: type first, then size (`maxSize` applies per file, also for
 * each file of a multi-file input). The host turns a failure into an envelope with
 * `fileTypeRejectedError` / `fileTooLargeError` from errors.ts.
 */
export function checkFileInput(
  file: { mime: string; name?: string; size: number },
  descriptor: McpFileDescriptor,
): FileCheckResult {
  const label = file.name ?? 'file';
  if (!matchesAccept(file, descriptor.accept)) {
    const type = mimeEssence(file.mime) || OCTET_STREAM;
    const accept = descriptor.accept?.join(', ') ?? '';
    return { ok: false, code: 'E_FILE_TYPE_REJECTED', reason: `${label} (${type}) is not one of: ${accept}` };
  }
  if (descriptor.maxSize !== undefined && file.size > descriptor.maxSize) {
    return {
      ok: false,
      code: 'E_FILE_TOO_LARGE',
      reason: `${label} is ${file.size} bytes; the limit is ${descriptor.maxSize} bytes`,
    };
  }
  return { ok: true };
}

/**
 * A deep copy of `schema` without its file inputs (as findFileInputs finds them), also removed
 * from `required`. This is the schema the model sees: SEP-2356 §Host integration says hosts
 * "SHOULD either omit the property from the model-visible schema … or replace it with a sentinel",
 * because a model shown the slot hallucinates a value or re-emits file bytes through tokens.
 * Ignored (malformed) keywords stay: the SEP treats those fields as ordinary inputs.
 */
export function stripFileInputs<T>(schema: T): T {
  const copy = cloneJson(schema);
  if (!isObject(copy) || !isObject(copy.properties)) return copy;
  const removed = new Set(findFileInputs(copy).inputs.map((input) => input.path[0] as string));
  const object: JsonObject = copy;
  const properties = copy.properties;
  for (const key of removed) delete properties[key];
  if (Array.isArray(object.required)) object.required = object.required.filter((key) => !removed.has(key));
  return copy;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

// Keywords whose values are a subschema or an array of them (2020-12 plus draft-07's `definitions`
// and `additionalItems`). Only these are walked, so `const`/`enum`/`default`/`examples` data and a
// property merely *named* x-mcp-file never produce warnings.
const SCHEMA_KEYWORDS = new Set([
  ...['items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'additionalProperties'],
  ...['unevaluatedProperties', 'propertyNames', 'not', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf'],
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

type Visit = (node: JsonObject, pointer: string) => void;

function walkSchemas(node: unknown, pointer: string, seen: Set<object>, visit: Visit): void {
  if (!isObject(node) || seen.has(node)) return;
  seen.add(node);
  visit(node, pointer);
  for (const [keyword, child] of Object.entries(node)) {
    const at = `${pointer}/${escapePointer(keyword)}`;
    if (SCHEMA_MAPS.has(keyword) && isObject(child)) {
      for (const [key, value] of Object.entries(child))
        walkSchemas(value, `${at}/${escapePointer(key)}`, seen, visit);
    } else if (SCHEMA_KEYWORDS.has(keyword)) {
      if (!Array.isArray(child)) walkSchemas(child, at, seen, visit);
      else for (let i = 0; i < child.length; i++) walkSchemas(child[i], `${at}/${i}`, seen, visit);
    }
  }
}

/** Deep copy of JSON data (the web app cannot count on structuredClone in every bundle target). */
function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, cloneJson(child)])) as T;
}
