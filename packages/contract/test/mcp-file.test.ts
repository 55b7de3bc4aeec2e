import { describe, expect, it } from 'vitest';
import {
  checkFileInput,
  findFileInputs,
  MCP_FILE_KEYWORD,
  McpFileDescriptorSchema,
  stripFileInputs,
} from '../src/protocol/mcp-file.js';
import { matchesAccept } from '../src/protocol/mcp-file-accept.js';
import { fileTooLargeError, fileTypeRejectedError } from '../src/wire/errors.js';

// SEP-2356 §Overview, tool surface.
const describeImage = {
  name: 'describe_image',
  description: 'Describe the contents of an image.',
  inputSchema: {
    type: 'object',
    properties: {
      image: {
        type: 'string',
        format: 'uri',
        description: 'The image to describe.',
        'x-mcp-file': { accept: ['image/png', 'image/jpeg'], maxSize: 5242880 },
      },
    },
    required: ['image'],
  },
};

// SEP-2356 §Overview, elicitation surface (the requestedSchema inside the InputRequiredResult).
const profilePhotoRequest = {
  type: 'object',
  properties: {
    photo: {
      type: 'string',
      format: 'uri',
      title: 'Profile photo',
      'x-mcp-file': { accept: ['image/*'], maxSize: 2097152 },
    },
  },
  required: ['photo'],
};

const fileString = (descriptor: unknown = {}) => ({
  type: 'string',
  format: 'uri',
  'x-mcp-file': descriptor,
});

describe('McpFileDescriptorSchema', () => {
  it('accepts the SEP descriptors and an empty one', () => {
    expect(McpFileDescriptorSchema.parse({ accept: ['image/*'], maxSize: 2097152 })).toEqual({
      accept: ['image/*'],
      maxSize: 2097152,
    });
    expect(McpFileDescriptorSchema.parse({})).toEqual({});
  });

  it('drops unknown keys so later SEP fields do not disable the input', () => {
    expect(McpFileDescriptorSchema.parse({ maxSize: 1, schemes: ['https'] })).toEqual({ maxSize: 1 });
  });

  it.each([
    { maxSize: 0 },
    { maxSize: -1 },
    { maxSize: 1.5 },
    { maxSize: '10' },
    { accept: 'image/png' },
    { accept: [1] },
    null,
    'x',
  ])('rejects %j', (value) => {
    expect(McpFileDescriptorSchema.safeParse(value).success).toBe(false);
  });
});

describe('findFileInputs', () => {
  it('finds the describe_image input', () => {
    expect(findFileInputs(describeImage.inputSchema)).toEqual({
      inputs: [
        {
          path: ['image'],
          multiple: false,
          descriptor: { accept: ['image/png', 'image/jpeg'], maxSize: 5242880 },
          required: true,
        },
      ],
      warnings: [],
    });
  });

  it('finds the elicitation photo field', () => {
    const { inputs, warnings } = findFileInputs(profilePhotoRequest, { surface: 'elicitation' });
    expect(inputs).toEqual([
      {
        path: ['photo'],
        multiple: false,
        descriptor: { accept: ['image/*'], maxSize: 2097152 },
        required: true,
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('finds arrays whose items carry the keyword, in property order, with required flags', () => {
    const schema = {
      type: 'object',
      properties: {
        attachments: { type: 'array', items: fileString({ maxSize: 10 }), maxItems: 5 },
        summary: { type: 'string' },
        cover: fileString(),
      },
      required: ['summary'],
    };
    expect(findFileInputs(schema).inputs).toEqual([
      { path: ['attachments'], multiple: true, descriptor: { maxSize: 10 }, required: false },
      { path: ['cover'], multiple: false, descriptor: {}, required: false },
    ]);
  });

  it('ignores the SEP misplaced-keyword example (notes is not format uri) with a warning', () => {
    const schema = {
      type: 'object',
      properties: { notes: { type: 'string', 'x-mcp-file': { accept: ['text/plain'] } } },
    };
    const { inputs, warnings } = findFileInputs(schema);
    expect(inputs).toEqual([]);
    expect(warnings).toEqual([
      {
        pointer: '/properties/notes',
        reason: 'x-mcp-file is only valid on {"type":"string","format":"uri"}',
      },
    ]);
  });

  it('warns about the keyword on the array itself (an earlier draft placement)', () => {
    const schema = {
      properties: { files: { type: 'array', items: { type: 'string', format: 'uri' }, 'x-mcp-file': {} } },
    };
    const { inputs, warnings } = findFileInputs(schema);
    expect(inputs).toEqual([]);
    expect(warnings[0]?.pointer).toBe('/properties/files');
    expect(warnings[0]?.reason).toContain('for several files put it on items');
  });

  it('warns about wrongly shaped items', () => {
    const schema = { properties: { files: { type: 'array', items: { type: 'string', 'x-mcp-file': {} } } } };
    expect(findFileInputs(schema).warnings).toEqual([
      {
        pointer: '/properties/files/items',
        reason: 'x-mcp-file is only valid on {"type":"string","format":"uri"}',
      },
    ]);
  });

  it('ignores multi-file fields on the elicitation surface', () => {
    const schema = { properties: { files: { type: 'array', items: fileString() } } };
    const { inputs, warnings } = findFileInputs(schema, { surface: 'elicitation' });
    expect(inputs).toEqual([]);
    expect(warnings[0]).toEqual({
      pointer: '/properties/files/items',
      reason: 'multi-file fields are not part of SEP-2356 elicitation forms',
    });
  });

  it.each([
    [{ maxSize: -5 }, 'maxSize'],
    [{ accept: 'image/png' }, 'accept'],
    [true, 'malformed x-mcp-file'],
  ])('warns about a malformed descriptor %j', (descriptor, expected) => {
    const { inputs, warnings } = findFileInputs({ properties: { a: fileString(descriptor) } });
    expect(inputs).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.reason).toContain(expected);
  });

  it('warns about nested and other unrecognized placements, with JSON pointers', () => {
    const schema = {
      'x-mcp-file': {},
      properties: {
        outer: { type: 'object', properties: { 'in/ner': fileString() } },
        either: { anyOf: [{ type: 'null' }, fileString()] },
      },
      $defs: { file: fileString() },
    };
    const { inputs, warnings } = findFileInputs(schema);
    expect(inputs).toEqual([]);
    expect(warnings.map((warning) => warning.pointer)).toEqual([
      '',
      '/properties/outer/properties/in~1ner',
      '/properties/either/anyOf/1',
      '/$defs/file',
    ]);
  });

  it('does not mistake data or a property named x-mcp-file for the keyword', () => {
    const schema = {
      properties: {
        [MCP_FILE_KEYWORD]: { type: 'string' },
        meta: { type: 'object', default: { 'x-mcp-file': {} }, examples: [{ 'x-mcp-file': {} }] },
      },
      required: ['x-mcp-file'],
    };
    expect(findFileInputs(schema)).toEqual({ inputs: [], warnings: [] });
  });

  it.each([undefined, null, 'schema', [], { type: 'object' }, { properties: [] }])(
    'tolerates %j',
    (schema) => {
      expect(findFileInputs(schema)).toEqual({ inputs: [], warnings: [] });
    },
  );

  it('survives cyclic objects', () => {
    const node: Record<string, unknown> = { type: 'object' };
    node.not = node;
    expect(findFileInputs({ properties: { a: node } })).toEqual({ inputs: [], warnings: [] });
  });
});

describe('matchesAccept', () => {
  const png = { mime: 'image/png', name: 'Photo.PNG' };

  it('accepts everything when accept is absent or empty', () => {
    expect(matchesAccept(png, undefined)).toBe(true);
    expect(matchesAccept(png, [])).toBe(true);
  });

  it('compares type/subtype case-insensitively with parameters stripped', () => {
    expect(matchesAccept({ mime: 'IMAGE/PNG' }, ['image/png'])).toBe(true);
    expect(matchesAccept({ mime: 'text/csv; charset=utf-8' }, ['Text/CSV'])).toBe(true);
    expect(matchesAccept({ mime: 'text/csv' }, ['text/csv;charset=utf-8'])).toBe(true);
    expect(matchesAccept({ mime: 'image/jpeg' }, ['image/png'])).toBe(false);
    expect(matchesAccept({ mime: 'image/png' }, ['image/png+x'])).toBe(false);
  });

  it('handles image/* and */*', () => {
    expect(matchesAccept(png, ['image/*'])).toBe(true);
    expect(matchesAccept({ mime: 'Image/SVG+xml' }, ['IMAGE/*'])).toBe(true);
    expect(matchesAccept({ mime: 'application/pdf' }, ['image/*'])).toBe(false);
    expect(matchesAccept({ mime: 'imagex/png' }, ['image/*'])).toBe(false);
    expect(matchesAccept({ mime: 'application/pdf' }, ['*/*'])).toBe(true);
  });

  it('matches .ext entries against the name, case-insensitively, or the MIME type they map to', () => {
    expect(matchesAccept({ mime: 'application/octet-stream', name: 'Report.PDF' }, ['.pdf'])).toBe(true);
    expect(matchesAccept({ mime: 'application/pdf' }, ['.PDF'])).toBe(true);
    expect(matchesAccept({ mime: 'application/octet-stream', name: 'archive.tar.gz' }, ['.tar.gz'])).toBe(
      true,
    );
    expect(matchesAccept({ mime: 'application/octet-stream', name: 'pdf' }, ['.pdf'])).toBe(false);
    expect(matchesAccept({ mime: 'text/plain', name: 'notes.txt' }, ['.pdf', '.docx'])).toBe(false);
    expect(matchesAccept({ mime: 'text/plain', name: 'x' }, ['.'])).toBe(false);
  });

  it('treats a missing type as application/octet-stream (SEP §Wire encoding)', () => {
    expect(matchesAccept({ mime: '' }, ['application/octet-stream'])).toBe(true);
    expect(matchesAccept({ mime: '' }, ['image/*'])).toBe(false);
  });
});

describe('checkFileInput', () => {
  const descriptor = { accept: ['image/png', 'image/jpeg'], maxSize: 5242880 };

  it('passes a PNG within the limit, and anything against an empty descriptor', () => {
    expect(checkFileInput({ mime: 'image/png', name: 'a.png', size: 5242880 }, descriptor)).toEqual({
      ok: true,
    });
    expect(checkFileInput({ mime: 'x/y', size: 10 ** 12 }, {})).toEqual({ ok: true });
  });

  it('rejects the wrong type with E_FILE_TYPE_REJECTED', () => {
    expect(checkFileInput({ mime: 'application/pdf; x=1', name: 'a.pdf', size: 1 }, descriptor)).toEqual({
      ok: false,
      code: 'E_FILE_TYPE_REJECTED',
      reason: 'a.pdf (application/pdf) is not one of: image/png, image/jpeg',
    });
  });

  it('rejects a file over maxSize with E_FILE_TOO_LARGE', () => {
    expect(checkFileInput({ mime: 'image/png', size: 5242881 }, descriptor)).toEqual({
      ok: false,
      code: 'E_FILE_TOO_LARGE',
      reason: 'file is 5242881 bytes; the limit is 5242880 bytes',
    });
  });

  it('reports the type before the size', () => {
    const result = checkFileInput({ mime: 'text/plain', size: 10 ** 9 }, descriptor);
    expect(result.ok === false && result.code).toBe('E_FILE_TYPE_REJECTED');
  });

  it('uses codes the error builders in errors.ts know', () => {
    expect(fileTypeRejectedError({ name: 'a', mime: 'b', accept: [] }).meta_data.error_code).toBe(
      'E_FILE_TYPE_REJECTED',
    );
    expect(fileTooLargeError({ fileSizeBytes: 2, currentLimitBytes: 1 }).meta_data.error_code).toBe(
      'E_FILE_TOO_LARGE',
    );
  });
});

describe('stripFileInputs', () => {
  it('removes the describe_image input and its required entry, leaving the original alone', () => {
    const original = structuredClone(describeImage.inputSchema);
    expect(stripFileInputs(describeImage.inputSchema)).toEqual({
      type: 'object',
      properties: {},
      required: [],
    });
    expect(describeImage.inputSchema).toEqual(original);
  });

  it('keeps ordinary and malformed properties, and deep-copies them', () => {
    const schema = {
      type: 'object',
      properties: {
        image: fileString({ accept: ['image/*'] }),
        attachments: { type: 'array', items: fileString() },
        notes: { type: 'string', 'x-mcp-file': {} },
        options: { type: 'object', properties: { dpi: { type: 'integer' } } },
      },
      required: ['image', 'options', 'attachments'],
      additionalProperties: false,
    };
    const stripped = stripFileInputs(schema);
    expect(stripped).toEqual({
      type: 'object',
      properties: {
        notes: { type: 'string', 'x-mcp-file': {} },
        options: { type: 'object', properties: { dpi: { type: 'integer' } } },
      },
      required: ['options'],
      additionalProperties: false,
    });
    expect(stripped.properties.options).not.toBe(schema.properties.options);
    expect(Object.keys(schema.properties)).toHaveLength(4);
  });

  it.each([undefined, null, 'x', [1, { a: 1 }], { type: 'object' }])('copies %j unchanged', (schema) => {
    expect(stripFileInputs(schema)).toEqual(schema);
  });
});
