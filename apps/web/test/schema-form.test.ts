import { describe, expect, it } from 'vitest';
import { buildArguments, initialValues } from '../src/lib/build-arguments';
import { elicitationFields } from '../src/lib/elicitation-fields';
import { describeFields } from '../src/lib/schema-fields';

const reportSchema = {
  type: 'object',
  properties: {
    filename: { type: 'string', description: 'The CSV file', 'x-ferry-injected': 'filename' },
    username: { type: 'string', 'x-ferry-injected': 'username' },
    title: { type: 'string' },
  },
  required: ['filename', 'username'],
};

describe('describeFields', () => {
  it('hides host-filled parameters and turns filename into a My Files name picker', () => {
    const fields = describeFields(reportSchema, [
      { name: 'username', input: 'host' },
      { name: 'filename', input: 'file-name' },
    ]);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['filename', 'file-name', true],
      ['title', 'string', false],
    ]);
  });

  it('does not show the filename argument paired with an x-mcp-file input (Ferry fills it)', () => {
    const fields = describeFields(
      {
        type: 'object',
        properties: {
          document: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['text/csv'] } },
          document_name: { type: 'string', 'x-ferry-injected': 'x-mcp-file-name' },
          note: { type: 'string' },
        },
        required: ['document', 'document_name'],
      },
      [
        { name: 'document', input: 'file-picker' },
        { name: 'document_name', input: 'host' },
      ],
    );
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['document', 'file-picker'],
      ['note', 'string'],
    ]);
  });

  it('maps every JSON Schema shape the runner supports', () => {
    const fields = describeFields({
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number' },
        flag: { type: 'boolean', default: true },
        color: { type: 'string', enum: ['red', 'green'] },
        tags: { type: 'array', items: { type: 'string' } },
        options: { type: 'object', properties: { depth: { type: 'integer' } }, required: ['depth'] },
        maybe: { type: ['string', 'null'] },
        anything: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        image: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/png'], maxSize: 100 } },
        images: { type: 'array', items: { type: 'string', 'x-mcp-file': {} } },
      },
    });
    const kinds = Object.fromEntries(fields.map((f) => [f.name, f.kind]));
    expect(kinds).toEqual({
      count: 'integer',
      ratio: 'number',
      flag: 'boolean',
      color: 'enum',
      tags: 'array',
      options: 'object',
      maybe: 'string',
      anything: 'json',
      image: 'file-picker',
      images: 'file-picker',
    });
    const image = fields.find((f) => f.name === 'image');
    expect(image).toMatchObject({ accept: ['image/png'], maxSize: 100, multiple: false });
    expect(fields.find((f) => f.name === 'images')?.multiple).toBe(true);
    expect(fields.find((f) => f.name === 'options')?.properties?.[0]).toMatchObject({
      name: 'depth',
      required: true,
    });
    expect(fields.find((f) => f.name === 'count')?.label).toBe('Count');
  });
});

describe('buildArguments', () => {
  const fields = describeFields({
    type: 'object',
    properties: {
      seconds: { type: 'number', minimum: 0 },
      steps: { type: 'integer' },
      title: { type: 'string' },
      level: { type: 'integer', enum: [1, 2, 3] },
      tags: { type: 'array', items: { type: 'integer' } },
      raw: { oneOf: [{ type: 'string' }, { type: 'object' }] },
      doc: { type: 'string', 'x-mcp-file': {} },
      nested: { type: 'object', properties: { on: { type: 'boolean' }, note: { type: 'string' } } },
    },
    required: ['seconds', 'doc'],
  });

  it('converts typed text, leaves empty optionals out and puts picked files apart', () => {
    const values = {
      ...initialValues(fields),
      seconds: '2.5',
      steps: '',
      level: '2',
      tags: ['1', '20'],
      raw: '{"a":1}',
      doc: 'file-id-1',
      nested: { on: true, note: '' },
    };
    const built = buildArguments(fields, values);
    expect(built.errors).toEqual({});
    expect(built.values).toEqual({
      seconds: 2.5,
      level: 2,
      tags: [1, 20],
      raw: { a: 1 },
      nested: { on: true },
    });
    expect(built.files).toEqual({ doc: 'file-id-1' });
  });

  it('reports each problem on its own field', () => {
    const built = buildArguments(fields, {
      ...initialValues(fields),
      seconds: '-1',
      steps: '1.5',
      raw: '{oops',
      tags: ['x'],
    });
    expect(built.errors).toEqual({
      seconds: 'At least 0',
      steps: 'Enter a whole number',
      raw: 'Enter valid JSON',
      'tags[0]': 'Enter a number',
      doc: 'Pick a file',
    });
  });
});

describe('elicitationFields', () => {
  it('makes the host-listed x-mcp-file fields file pickers with their accept list', () => {
    const fields = elicitationFields({
      callId: 'c',
      elicitationId: 'e',
      message: 'Which document?',
      requestedSchema: {
        type: 'object',
        properties: {
          document: { type: 'string', format: 'uri', title: 'Document' },
          note: { type: 'string' },
          urgent: { type: 'boolean' },
        },
      },
      fileFields: [{ name: 'document', required: true, accept: ['text/csv'], maxSize: 1024 }],
    });
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['document', 'file-picker', true],
      ['note', 'string', false],
      ['urgent', 'boolean', false],
    ]);
    expect(fields[0]).toMatchObject({
      label: 'Document',
      accept: ['text/csv'],
      maxSize: 1024,
      multiple: false,
    });
  });
});
