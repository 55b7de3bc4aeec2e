// Step 1: what a tool's inputSchema says about the arguments Ferry fills or rewrites. Pure.
//   username            v2 §4 / v2.1 §3.1: overwritten with the authenticated user, only if declared
//   filename            v2.1 §3.1 / v2 §4: a single file reference
//   filenames           v2.1 §3.1: several file references
//   file_names          v2 §4: several file references
//   file_data_base64    file-injection-pattern: the file's bytes, only meaningful beside `filename`
//   x-mcp-file          SEP-2356: file inputs the user picks, never the model
//   <input>_name …      SEP-2356: the paired filename argument, filled from the same pick
//                       (findFileNameArguments; wins over the `filename` convention)
import {
  type FileInput,
  type FileNameArgument,
  findFileInputs,
  findFileNameArguments,
} from '@ferry/contract';

export interface ToolConventions {
  /** Every property the schema declares (file inputs included). */
  declared: ReadonlySet<string>;
  /**
   * The schema lets undeclared arguments through (`additionalProperties` true or a schema), so
   * they are kept. Absent or false: they are dropped (DESIGN step 2).
   */
  allowsUndeclared: boolean;
  username: boolean;
  filename: boolean;
  filenames: boolean;
  fileNames: boolean;
  /** Declared beside `filename`. */
  fileDataBase64: boolean;
  fileInputs: readonly FileInput[];
  /** Ordinary string arguments that carry a picked file's name (filled by the host, not the model). */
  fileNameArguments: readonly FileNameArgument[];
  /** Ignored x-mcp-file keywords and the like, for logs. */
  warnings: readonly string[];
}

/**
 * Per schema object: a call, a tool listing and the model's tool list all ask about the same
 * schema, and walking it for x-mcp-file inputs is the costly part. Keyed by identity, so a
 * server's tools/list_changed (the pooled connection lists again: new objects) never meets an
 * old answer; the entry goes with its schema. Schemas are read, never changed in place.
 */
const resolved = new WeakMap<object, ToolConventions>();

/** The conventions of `inputSchema`; the same (frozen) answer for the same schema object. */
export function resolveConventions(inputSchema: unknown): ToolConventions {
  if (typeof inputSchema !== 'object' || inputSchema === null) return computeConventions(inputSchema);
  let conventions = resolved.get(inputSchema);
  if (conventions === undefined) {
    conventions = computeConventions(inputSchema);
    resolved.set(inputSchema, conventions);
  }
  return conventions;
}

function computeConventions(inputSchema: unknown): ToolConventions {
  const schema = isObject(inputSchema) ? inputSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const declared = new Set(Object.keys(properties));
  const found = findFileInputs(schema);
  const fileInputs = found.inputs;
  const fileNameArguments = findFileNameArguments(schema, fileInputs);
  const sep2356 = new Set([
    ...fileInputs.map((input) => input.path[0] as string),
    ...fileNameArguments.map((pair) => pair.argument),
  ]);
  // A property that is an x-mcp-file input (or its paired name) follows SEP-2356, whatever it is called.
  const convention = (name: string) => declared.has(name) && !sep2356.has(name);
  const filename = convention('filename');
  const additional = schema.additionalProperties;
  // Shared by every caller of the same schema: frozen so that no caller can change it for the others.
  return Object.freeze({
    declared,
    allowsUndeclared: additional === true || isObject(additional),
    username: convention('username'),
    filename,
    filenames: convention('filenames'),
    fileNames: convention('file_names'),
    fileDataBase64: filename && convention('file_data_base64'),
    fileInputs: Object.freeze(fileInputs),
    fileNameArguments: Object.freeze(fileNameArguments),
    warnings: Object.freeze(found.warnings.map((w) => `inputSchema${w.pointer}: ${w.reason}`)),
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Per tools/list answer (the pooled connection's frozen array): its tools by name. */
const indexes = new WeakMap<readonly { name: string }[], Map<string, { name: string }>>();

/** The tool called `name` in a listing, through an index built once per listing. */
export function findTool<T extends { name: string }>(tools: readonly T[], name: string): T | undefined {
  let index = indexes.get(tools) as Map<string, T> | undefined;
  if (index === undefined) {
    index = new Map();
    // The first of a duplicated name wins, as Array.find did.
    for (const tool of tools) if (!index.has(tool.name)) index.set(tool.name, tool);
    indexes.set(tools, index);
  }
  return index.get(name);
}
