// The model's tool arguments are external input: parsed as JSON, required to be an object, the
// host-filled properties dropped (the host overwrites or drops them too; this keeps them out of
// the transcript), and the top level checked against the schema the model was shown, so a
// mistake comes back to the model as a clear message it can correct instead of a tool crash.
// File names the model gives for x-mcp-file inputs are taken out of the arguments: they are not
// what the tool gets (file-inputs.ts turns them into the user's approved files).
import type { OfferedTool } from './model-tools.js';

const MAX_ARGUMENT_CHARS = 256 * 1024;

export type ArgumentCheck =
  | {
      ok: true;
      arguments: Record<string, unknown>;
      dropped: string[];
      /** x-mcp-file argument → the file name(s) the model gave; absent when it gave none. */
      fileNames: Record<string, string[]>;
    }
  | { ok: false; message: string };

export function checkToolArguments(raw: string, tool: OfferedTool): ArgumentCheck {
  if (raw.length > MAX_ARGUMENT_CHARS) {
    return {
      ok: false,
      message: `Arguments are too long (${raw.length} characters; at most ${MAX_ARGUMENT_CHARS})`,
    };
  }
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: `Arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'Arguments must be a JSON object' };
  }
  const args: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (tool.hidden.has(key)) dropped.push(key);
    else args[key] = item;
  }
  const properties = isObject(tool.parameters.properties) ? tool.parameters.properties : {};
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  const problems: string[] = [];
  for (const key of required) {
    if (typeof key === 'string' && (args[key] === undefined || args[key] === null))
      problems.push(`"${key}" is required`);
  }
  for (const [key, item] of Object.entries(args)) {
    const property = properties[key];
    if (!isObject(property)) continue;
    const expected = typesOf(property);
    if (expected.length > 0 && !expected.some((type) => matches(type, item))) {
      problems.push(`"${key}" must be ${expected.join(' or ')}`);
    }
    if (Array.isArray(property.enum) && !property.enum.some((option) => option === item)) {
      problems.push(`"${key}" must be one of ${property.enum.map((o) => JSON.stringify(o)).join(', ')}`);
    }
  }
  const fileNames: Record<string, string[]> = {};
  for (const input of tool.conventions.fileInputs) {
    const key = input.path[0] as string;
    const given = args[key];
    delete args[key];
    const listed = (Array.isArray(given) ? given : [given]).filter(
      (name) => name !== undefined && name !== null,
    );
    // The top-level check above saw only "array": its items are checked here.
    if (input.multiple && listed.some((name) => typeof name !== 'string'))
      problems.push(`"${key}" must be an array of file names (strings)`);
    const names = listed.filter((name): name is string => typeof name === 'string' && name.trim() !== '');
    if (names.length > 0) fileNames[key] = names;
  }
  if (problems.length > 0) return { ok: false, message: `Invalid arguments: ${problems.join('; ')}` };
  return { ok: true, arguments: args, dropped, fileNames };
}

function typesOf(property: Record<string, unknown>): string[] {
  const type = property.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

function matches(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
