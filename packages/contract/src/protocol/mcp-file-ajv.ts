// x-mcp-file for Ajv, the JSON Schema validator of the MCP TypeScript SDK (its
// AjvJsonSchemaValidator): a server validates an elicitation answer against its requestedSchema,
// a client a tool's structuredContent against its outputSchema, and a tool author may compile an
// inputSchema. Two things go wrong with a schema carrying the SEP-2356 keyword:
//   - Ajv's strict mode (its default) throws `strict mode: unknown keyword: "x-mcp-file"`;
//   - ajv-formats' `uri` regex recurses per character: a data URI of ~10 MB overflows the stack
//     (RangeError), and a file of any size costs a full regex pass just to be called a URI.
// `addMcpFileVocabulary(ajv)` registers the keyword (an annotation: it never fails a value) and
// replaces `uri` with a format that checks a `data:` URI by one linear scan (RFC 2397 shape:
// a header without spaces, a comma, URI characters) and hands every other string to the `uri`
// format registered before, if any. Structural types: the contract does not depend on ajv.

import { MCP_FILE_KEYWORD } from './mcp-file-accept.js';

/** What of an Ajv instance addMcpFileVocabulary uses. */
export interface AjvVocabularyTarget {
  getKeyword(keyword: string): unknown;
  addKeyword(definition: typeof MCP_FILE_AJV_KEYWORD): unknown;
  addFormat(name: string, format: { type: 'string'; validate: (value: string) => boolean }): unknown;
  readonly formats: Readonly<Record<string, unknown>>;
}

/** Ajv `KeywordDefinition` of x-mcp-file: an annotation whose value is a descriptor object. */
export const MCP_FILE_AJV_KEYWORD = {
  keyword: MCP_FILE_KEYWORD,
  schemaType: 'object',
  // Checked only when Ajv validates schemas; unknown descriptor keys stay allowed (a later SEP
  // may add some, as SEP-2631's transferModes does).
  metaSchema: {
    type: 'object',
    properties: {
      accept: { type: 'array', items: { type: 'string' } },
      maxSize: { type: 'integer', minimum: 1 },
    },
  },
} as const;

const DATA_URI_HEAD = /^data:[^\s,]*,/i;
/** RFC 3986 `unreserved`, `sub-delims`, `:`, `@`, `/`, `?` and `%` (escapes). */
const URI_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
/** Without a previous `uri` format: a scheme and no whitespace, as loose as ajv-formats' fast mode. */
const LOOSE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

/** An RFC 2397 data URI by its shape, in linear time (the payload is not decoded). */
export function isDataUriShape(text: string): boolean {
  const head = DATA_URI_HEAD.exec(text);
  return head !== null && URI_CHARS.test(text.slice(head[0].length));
}

/** Registers x-mcp-file and the data-URI-aware `uri` format on an Ajv instance; returns it. */
export function addMcpFileVocabulary<T extends AjvVocabularyTarget>(ajv: T): T {
  if (!ajv.getKeyword(MCP_FILE_KEYWORD)) ajv.addKeyword(MCP_FILE_AJV_KEYWORD);
  const previous = formatCheck(ajv.formats.uri);
  if (previous?.dataAware) return ajv;
  const validate = (value: string) =>
    /^data:/i.test(value)
      ? isDataUriShape(value)
      : (previous?.check ?? LOOSE_URI.test.bind(LOOSE_URI))(value);
  ajv.addFormat('uri', { type: 'string', validate: Object.assign(validate, { [DATA_AWARE]: true }) });
  return ajv;
}

const DATA_AWARE = Symbol.for('ferry.mcpFile.dataAwareUri');

/** An Ajv format (RegExp, function, or `{ validate }`) as a check; undefined when there is none. */
function formatCheck(format: unknown): { check: (value: string) => boolean; dataAware: boolean } | undefined {
  const validate =
    typeof format === 'object' && format !== null && !(format instanceof RegExp) && 'validate' in format
      ? (format as { validate: unknown }).validate
      : format;
  if (validate instanceof RegExp) return { check: (value) => validate.test(value), dataAware: false };
  if (typeof validate === 'function') {
    const fn = validate as ((value: string) => boolean) & { [DATA_AWARE]?: boolean };
    return { check: (value) => fn(value) === true, dataAware: fn[DATA_AWARE] === true };
  }
  return undefined;
}
