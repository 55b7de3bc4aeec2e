// SEP-2356 (final draft): "If a server needs the original filename, it SHOULD declare a separate
// ordinary string argument for it; the description on that argument is sufficient for hosts to
// know what to populate", and "the host populates both the file slot and the filename argument
// from the same selection, so they can't drift; the model never authors either". The SEP leaves
// the recognition to the host; this is Ferry's rule, deterministic so forms, the model's schema and
// the pipeline agree (docs/agent.md "The data URI and the paired filename argument"):
//
//   1. by name: a root property `<field>_name`, `<field>Name`, `<field>_filename`,
//      `<field>Filename`, `<field>_file_name` or `<field>FileName` names the single-file input
//      `<field>`; `filename`, `file_name`, `fileName`, `original_filename` or `originalFilename`
//      names it when it is the tool's only file input (not `filename` beside `file_data_base64`:
//      that pair is the file-injection pattern's own);
//   2. by description (inputs rule 1 left unpaired): the property's description or title speaks of
//      a file name ("file name", "filename", "name of the … file") and not of an output ("save",
//      "output", "new", …), and, when the tool has several file inputs, names the field; exactly one
//      such property, or none is paired.
//
// A candidate is an ordinary string property: `type: "string"`, no `enum`/`const`/`format`, no
// x-mcp-file, and not one of the names Ferry fills by other conventions. Multi-file inputs are not
// paired (a name list beside an array of data URIs is not in the SEP).
import type { FileInput } from './mcp-file.js';
import { MCP_FILE_KEYWORD } from './mcp-file-accept.js';

export interface FileNameArgument {
  /** The ordinary string property Ferry fills with the picked file's name. */
  argument: string;
  /** The single-file x-mcp-file input (root property) whose file it names. */
  fileInput: string;
  /** Which rule paired them. */
  rule: 'name' | 'description';
}

/** Filled or rewritten by other conventions (resolve-conventions.ts), so never a paired name. */
const OTHER_CONVENTIONS = new Set(['username', 'filenames', 'file_names', 'file_data_base64']);
const GENERIC_NAMES = ['filename', 'file_name', 'fileName', 'original_filename', 'originalFilename'];
const FILE_NAME_TEXT = /\b(?:file[ _-]?name|name of the (?:\w+ )?(?:file|document|upload))\b/i;
const OUTPUT_TEXT =
  /\b(?:output|save[ds]?|saving|write|written|export(?:ed)?|destination|target|new|rename[ds]?)\b/i;

function namesFor(field: string): string[] {
  return ['_name', 'Name', '_filename', 'Filename', '_file_name', 'FileName'].map((suffix) => field + suffix);
}

/** The paired filename arguments of a tool's inputSchema, given its file inputs (findFileInputs). */
export function findFileNameArguments(schema: unknown, fileInputs: readonly FileInput[]): FileNameArgument[] {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const inputNames = new Set(fileInputs.map((input) => input.path[0] as string));
  const isCandidate = (key: string): boolean => {
    const property = properties[key];
    return (
      Object.hasOwn(properties, key) &&
      isObject(property) &&
      !inputNames.has(key) &&
      !OTHER_CONVENTIONS.has(key) &&
      property.type === 'string' &&
      !('enum' in property || 'const' in property || 'format' in property || MCP_FILE_KEYWORD in property)
    );
  };
  const singles = fileInputs.filter((input) => !input.multiple).map((input) => input.path[0] as string);
  const found: FileNameArgument[] = [];
  const used = new Set<string>();
  const pair = (argument: string, fileInput: string, rule: FileNameArgument['rule']) => {
    found.push({ argument, fileInput, rule });
    used.add(argument);
  };

  const only = fileInputs.length === 1 && singles.length === 1 ? singles[0] : undefined;
  for (const field of singles) {
    const generic =
      'file_data_base64' in properties ? GENERIC_NAMES.filter((n) => n !== 'filename') : GENERIC_NAMES;
    const names = field === only ? [...namesFor(field), ...generic] : namesFor(field);
    const argument = names.find((name) => !used.has(name) && isCandidate(name));
    if (argument !== undefined) pair(argument, field, 'name');
  }

  for (const field of singles) {
    if (found.some((entry) => entry.fileInput === field)) continue;
    const mentions = new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(field)}($|[^A-Za-z0-9_])`, 'i');
    const matches = Object.keys(properties).filter((key) => {
      if (used.has(key) || !isCandidate(key)) return false;
      const property = properties[key] as Record<string, unknown>;
      const text = [property.description, property.title].filter((t) => typeof t === 'string').join(' ');
      if (!FILE_NAME_TEXT.test(text) || OUTPUT_TEXT.test(text)) return false;
      return field === only || mentions.test(text);
    });
    if (matches.length === 1) pair(matches[0] as string, field, 'description');
  }
  return found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
