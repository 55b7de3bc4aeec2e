// x-mcp-file with Ajv: strict mode knows the keyword once the contract's vocabulary is added, and a
// data URI passes `format: uri` by a linear scan where ajv-formats' regex overflows the stack.
import { addMcpFileVocabulary, encodeDataUri, isDataUriShape } from '@ferry/contract';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { mcpFileSchemaValidator } from '../src/schema-validator.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

const FORM = {
  type: 'object',
  properties: {
    document: {
      type: 'string',
      format: 'uri',
      'x-mcp-file': { accept: ['text/csv'], maxSize: 1024 },
    },
    note: { type: 'string' },
  },
  required: ['document'],
} as const;

/** A data URI of `bytes` zero bytes: long enough to break a recursive regex. */
const bigDataUri = (bytes: number) => encodeDataUri({ mime: 'text/csv', data: new Uint8Array(bytes) });

describe('Ajv strict mode', () => {
  it('rejects the unknown keyword without the vocabulary, compiles with it', () => {
    const plain = addFormats(new Ajv2020({ strict: true }));
    expect(() => plain.compile(FORM)).toThrow(/unknown keyword: "x-mcp-file"/);
    const ajv = addMcpFileVocabulary(addFormats(new Ajv2020({ strict: true })));
    const validate = ajv.compile(FORM);
    expect(validate({ document: 'data:text/csv;base64,YSxiCg==' })).toBe(true);
    expect(validate({ document: 'data:text/csv;name=a%20b.csv;base64,YSxiCg==' })).toBe(true);
    expect(validate({ document: 'https://files.example/a.csv' })).toBe(true);
    // Not a URI at all, and a data URI with a raw space: the format still fails them.
    expect(validate({ document: 'not a uri' })).toBe(false);
    expect(validate({ document: 'data:text/csv,a b' })).toBe(false);
    // Added twice: no "already defined" error.
    expect(() => addMcpFileVocabulary(ajv)).not.toThrow();
  });

  it('checks the descriptor against its meta-schema when Ajv validates schemas', () => {
    const ajv = addMcpFileVocabulary(addFormats(new Ajv2020({ strict: true, validateSchema: true })));
    const bad = { type: 'string', format: 'uri', 'x-mcp-file': { maxSize: 'big' } };
    expect(() => ajv.compile(bad)).toThrow(/maxSize/);
    // Unknown descriptor keys stay allowed (a later SEP may add some).
    expect(() => ajv.compile({ ...bad, 'x-mcp-file': { transferModes: ['inline'] } })).not.toThrow();
  });

  it('a strict engine without ajv-formats gets a `uri` format instead of "unknown format"', () => {
    expect(() => new Ajv2020({ strict: true }).addKeyword('x-mcp-file').compile(FORM)).toThrow(
      /unknown format "uri"/,
    );
    const validate = addMcpFileVocabulary(new Ajv2020({ strict: true })).compile(FORM);
    expect(validate({ document: 'data:text/csv;base64,YSxiCg==' })).toBe(true);
    expect(validate({ document: 'mailto:a@example.com' })).toBe(true);
    expect(validate({ document: 'no scheme' })).toBe(false);
  });
});

describe('data URIs and format: uri', () => {
  const uri = bigDataUri(12 * 1024 * 1024);

  it("the SDK's default validator overflows the stack on a 12 MiB file (why this exists)", () => {
    const check = new AjvJsonSchemaValidator().getValidator(FORM);
    expect(() => check({ document: uri })).toThrow(RangeError);
  });

  it('mcpFileSchemaValidator accepts it, and still reports real errors', () => {
    const check = mcpFileSchemaValidator().getValidator(FORM);
    expect(check({ document: uri })).toMatchObject({ valid: true });
    expect(check({ note: 'x' })).toMatchObject({
      valid: false,
      errorMessage: expect.stringContaining('document'),
    });
    expect(check({ document: 'data:text/csv,a b' })).toMatchObject({ valid: false });
  });

  it('follows the declared dialect like the SDK, strict on request', () => {
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', ...FORM };
    expect(mcpFileSchemaValidator().getValidator(draft7)({ document: uri })).toMatchObject({ valid: true });
    expect(() =>
      mcpFileSchemaValidator().getValidator({ $schema: 'https://example.com/s', ...FORM }),
    ).toThrow(/Unsupported \$schema/);
    const strict = mcpFileSchemaValidator({ ajv: { strict: true } });
    expect(strict.getValidator(FORM)({ document: 'data:,x' })).toMatchObject({ valid: true });
    expect(() => strict.getValidator({ ...FORM, 'x-other': 1 } as typeof FORM)).toThrow(/unknown keyword/);
  });

  it('isDataUriShape is linear: 12 MiB in well under a second', () => {
    const started = performance.now();
    expect(isDataUriShape(uri)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(isDataUriShape('data:text/csv;base64')).toBe(false);
    expect(isDataUriShape('data:a b,x')).toBe(false);
  });
});
