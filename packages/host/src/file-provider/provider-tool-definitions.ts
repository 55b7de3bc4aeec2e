// The provider's tools as tools/list shows them (JSON Schema, the spec's names and parameters)
// and the parsing of a call's arguments. Parsing is lenient where callers are known to differ
// (numbers as numeric strings, booleans as "true"/"false", null for an omitted optional value,
// one pattern as a string) and strict otherwise, with a message naming the field.
import { z } from 'zod';
import {
  type FileProviderSettings,
  OPTIONAL_PROVIDER_TOOLS,
  PROVIDER_TOOLS,
  type ProviderToolName,
} from './provider-types.js';

export interface ProviderToolDefinition {
  name: ProviderToolName;
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, Record<string, unknown>>;
    required: string[];
  };
}

const pathParam = (what: string) => ({ type: 'string', description: `Absolute path to the ${what}` });
const maxSize = { type: 'integer', minimum: 0, description: 'Maximum file size in bytes' };
const maxFiles = { type: 'integer', minimum: 0, description: 'Maximum number of paths to return' };

const DEFINITIONS: readonly ProviderToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read the contents of a text file.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: pathParam('file'),
        encoding: {
          type: 'string',
          description: 'Text encoding to use (default: "utf-8")',
          default: 'utf-8',
        },
        max_size: maxSize,
      },
      required: ['file_path'],
    },
  },
  {
    name: 'read_file_binary',
    description: 'Read the contents of a binary file, returning base64-encoded data.',
    inputSchema: {
      type: 'object',
      properties: { file_path: pathParam('file'), max_size: maxSize },
      required: ['file_path'],
    },
  },
  {
    name: 'list_directory',
    description: 'List files and directories in a directory (absolute paths).',
    inputSchema: {
      type: 'object',
      properties: {
        directory_path: pathParam('directory'),
        pattern: { type: 'string', description: 'Glob pattern to filter entries by name' },
        recursive: {
          type: 'boolean',
          description: 'Whether to list recursively (default: false)',
          default: false,
        },
        max_files: maxFiles,
      },
      required: ['directory_path'],
    },
  },
  {
    name: 'file_exists',
    description: 'Check if a file or directory exists.',
    inputSchema: { type: 'object', properties: { path: pathParam('file or directory') }, required: ['path'] },
  },
  {
    name: 'get_file_stats',
    description: 'Get file statistics and metadata.',
    inputSchema: { type: 'object', properties: { path: pathParam('file or directory') }, required: ['path'] },
  },
  {
    name: 'calculate_file_hash',
    description: 'Calculate the hexadecimal hash digest of a file.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: pathParam('file'),
        algorithm: {
          type: 'string',
          enum: ['md5', 'sha1', 'sha256', 'sha512'],
          description: 'Hash algorithm (default: "md5")',
          default: 'md5',
        },
      },
      required: ['file_path'],
    },
  },
  {
    name: 'find_files',
    description: 'Find files whose names match any of the glob patterns (absolute paths).',
    inputSchema: {
      type: 'object',
      properties: {
        directory_path: pathParam('directory to search'),
        patterns: { type: 'array', items: { type: 'string' }, description: 'Glob patterns to match' },
        recursive: {
          type: 'boolean',
          description: 'Whether to search recursively (default: true)',
          default: true,
        },
        max_files: maxFiles,
      },
      required: ['directory_path', 'patterns'],
    },
  },
];

/** The tools a caller may use under these settings, for tools/list. Fresh objects each time. */
export function providerToolDefinitions(settings: FileProviderSettings): ProviderToolDefinition[] {
  return DEFINITIONS.filter((tool) => isProviderToolEnabled(settings, tool.name)).map(
    (tool) => structuredClone(tool) as ProviderToolDefinition,
  );
}

export function isProviderToolEnabled(
  settings: FileProviderSettings,
  tool: string,
): tool is ProviderToolName {
  if (!(PROVIDER_TOOLS as readonly string[]).includes(tool)) return false;
  return settings.enableOptionalTools || !(OPTIONAL_PROVIDER_TOOLS as readonly string[]).includes(tool);
}

// null is how JSON callers say "not given" (Python's None).
const absent = (value: unknown) => (value === null ? undefined : value);

const requiredString = z.string({
  error: (issue) => (issue.input === undefined ? 'is required' : 'expected a string'),
});
const optionalString = z.preprocess(absent, z.string({ error: 'expected a string' }).optional());
const optionalInteger = z.preprocess((value) => {
  const given = absent(value);
  return typeof given === 'string' && /^\s*\d+\s*$/.test(given) ? Number(given) : given;
}, z
  .number({ error: 'expected a non-negative integer' })
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .optional());
const optionalBoolean = z.preprocess((value) => {
  const given = absent(value);
  if (typeof given !== 'string') return given;
  const word = given.trim().toLowerCase();
  return word === 'true' ? true : word === 'false' ? false : given;
}, z.boolean({ error: 'expected a boolean' }).optional());
const patternList = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(z.string({ error: 'expected a string' }), {
    error: (issue) => (issue.input === undefined ? 'is required' : 'expected an array of strings'),
  }),
);

const SCHEMAS = {
  read_file: z.object({ file_path: requiredString, encoding: optionalString, max_size: optionalInteger }),
  read_file_binary: z.object({ file_path: requiredString, max_size: optionalInteger }),
  list_directory: z.object({
    directory_path: requiredString,
    pattern: optionalString,
    recursive: optionalBoolean,
    max_files: optionalInteger,
  }),
  file_exists: z.object({ path: requiredString }),
  get_file_stats: z.object({ path: requiredString }),
  calculate_file_hash: z.object({ file_path: requiredString, algorithm: optionalString }),
  find_files: z.object({
    directory_path: requiredString,
    patterns: patternList,
    recursive: optionalBoolean,
    max_files: optionalInteger,
  }),
} satisfies Record<ProviderToolName, z.ZodType>;

export type ProviderToolArgs = { [Name in ProviderToolName]: z.output<(typeof SCHEMAS)[Name]> };

export type ParsedProviderArgs<Name extends ProviderToolName> =
  | { ok: true; args: ProviderToolArgs[Name] }
  | { ok: false; message: string };

/**
 * Parses a call's arguments (unknown extra fields are ignored). The message reads
 * `Invalid parameters: <field>: <problem>[; ...]`.
 */
export function parseProviderArgs<Name extends ProviderToolName>(
  tool: Name,
  args: unknown,
): ParsedProviderArgs<Name> {
  const given = args === undefined || args === null ? {} : args;
  if (typeof given !== 'object' || Array.isArray(given)) {
    return { ok: false, message: 'Invalid parameters: arguments: expected an object' };
  }
  const parsed = SCHEMAS[tool].safeParse(given);
  if (parsed.success) return { ok: true, args: parsed.data as ProviderToolArgs[Name] };
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`,
  );
  return { ok: false, message: `Invalid parameters: ${problems.join('; ')}` };
}
