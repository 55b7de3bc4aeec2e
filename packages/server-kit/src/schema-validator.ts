// The JSON Schema validator an MCP server (or client) built with the SDK can take
// (`new McpServer(info, { jsonSchemaValidator: mcpFileSchemaValidator() })`): the SDK's default
// (AjvJsonSchemaValidator: one Ajv engine per declared dialect, strict off, ajv-formats, all errors)
// plus SEP-2356's x-mcp-file vocabulary from the contract. Without it a server's elicitation
// answer validation runs ajv-formats' `uri` regex over each data URI, which overflows the stack
// from ~10 MB (RangeError) and fails the call; a strict engine would also reject the keyword.
import { addMcpFileVocabulary } from '@ferry/contract';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Engine = Ajv | Ajv2019 | Ajv2020;
type Dialect = '2020-12' | '2019-09' | 'draft-07';

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Engine) => Engine;

const ENGINE_OPTIONS: Options = {
  strict: false,
  validateFormats: true,
  validateSchema: false,
  allErrors: true,
};

/** The dialect a schema declares, as the SDK reads `$schema`; another dialect is an error. */
function dialectOf(schema: JsonSchemaType): Dialect {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined) return '2020-12';
  const id = String(declared).replace(/#$/, '');
  if (/json-schema\.org\/draft\/2020-12\/schema$/.test(id)) return '2020-12';
  if (/json-schema\.org\/draft\/2019-09\/schema$/.test(id)) return '2019-09';
  if (/json-schema\.org\/draft-0[67]\/schema$/.test(id)) return 'draft-07';
  throw new Error(`Unsupported $schema ${JSON.stringify(declared)}: 2020-12, 2019-09, draft-07 or draft-06`);
}

export interface McpFileSchemaValidatorOptions {
  /** Ajv options on top of the SDK's defaults (e.g. `{ strict: true }`). */
  ajv?: Options;
}

/** A `jsonSchemaValidator` that knows x-mcp-file and does not regex data URIs. */
export function mcpFileSchemaValidator(options: McpFileSchemaValidatorOptions = {}): jsonSchemaValidator {
  const engines = new Map<Dialect, Engine>();
  const engineFor = (dialect: Dialect): Engine => {
    let engine = engines.get(dialect);
    if (!engine) {
      const settings = { ...ENGINE_OPTIONS, ...options.ajv };
      engine =
        dialect === '2020-12'
          ? new Ajv2020(settings)
          : dialect === '2019-09'
            ? new Ajv2019(settings)
            : new Ajv(settings);
      addMcpFileVocabulary(addFormats(engine));
      engines.set(dialect, engine);
    }
    return engine;
  };
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      const engine = engineFor(dialectOf(schema));
      const id = (schema as { $id?: unknown }).$id;
      const validate = (typeof id === 'string' ? engine.getSchema(id) : undefined) ?? engine.compile(schema);
      return (input) =>
        validate(input)
          ? { valid: true, data: input as T, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: engine.errorsText(validate.errors) };
    },
  };
}
