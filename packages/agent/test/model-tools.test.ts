import { describe, expect, it } from 'vitest';
import { FILENAME_DESCRIPTION, FILENAMES_DESCRIPTION, modelSchema } from '../src/model-tools.js';

describe('the schema shown to the model', () => {
  it('removes username and file_data_base64, turns x-mcp-file inputs into optional file names', () => {
    const input = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        filename: { type: 'string', description: 'a path on the host' },
        filenames: { type: 'array', items: { type: 'string' } },
        username: { type: 'string' },
        file_data_base64: { type: 'string' },
        picture: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/*'] } },
        question: { type: 'string' },
      },
      required: ['filename', 'username', 'file_data_base64', 'picture', 'question'],
      additionalProperties: false,
    };
    const before = JSON.stringify(input);
    const { parameters, hidden } = modelSchema(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        filename: { type: 'string', description: FILENAME_DESCRIPTION },
        filenames: { type: 'array', items: { type: 'string' }, description: FILENAMES_DESCRIPTION },
        question: { type: 'string' },
        // A name slot, not the URI: no format, no keyword, and not required of the model.
        picture: { type: 'string', description: expect.stringContaining(FILENAME_DESCRIPTION) },
      },
      required: ['filename', 'question'],
      additionalProperties: false,
    });
    const said = (parameters.properties as Record<string, { description: string }>).picture?.description;
    expect(said).toContain('accepts image/*');
    expect(said).toContain('leave it out and the user picks the file');
    expect([...hidden].sort()).toEqual(['file_data_base64', 'username']);
  });

  it('offers a multi-file x-mcp-file input as a list of names, with the limits and purpose', () => {
    const { parameters, fileInputDescriptions } = modelSchema({
      type: 'object',
      properties: {
        scans: {
          type: 'array',
          description: 'Pages to merge',
          items: {
            type: 'string',
            format: 'uri',
            'x-mcp-file': { accept: ['application/pdf'], maxSize: 1024 },
          },
        },
      },
      required: ['scans'],
    });
    expect(parameters.required).toEqual([]);
    const scans = (parameters.properties as Record<string, Record<string, unknown>>).scans;
    expect(scans).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(scans?.description).toMatch(
      /^Names of files in the user's files \(as listed in the available files\)\. For: Pages to merge \(accepts application\/pdf, at most 1 KiB\)\./,
    );
    expect(JSON.stringify(parameters)).not.toContain('x-mcp-file');
    expect(JSON.stringify(parameters)).not.toContain('"uri"');
    expect([...fileInputDescriptions]).toEqual([['scans', 'Pages to merge']]);
  });

  it('keeps file_data_base64 when there is no filename beside it (the host does not fill it then)', () => {
    const { parameters } = modelSchema({
      type: 'object',
      properties: { file_data_base64: { type: 'string' } },
    });
    expect(Object.keys(parameters.properties as object)).toEqual(['file_data_base64']);
  });

  it('hides the filename argument paired with an x-mcp-file input (the host fills it from the pick)', () => {
    const { parameters, hidden } = modelSchema({
      type: 'object',
      properties: {
        document: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['text/csv'] } },
        document_name: { type: 'string', description: 'Original file name of the document' },
        note: { type: 'string' },
      },
      required: ['document', 'document_name', 'note'],
    });
    expect(Object.keys(parameters.properties as object).sort()).toEqual(['document', 'note']);
    expect(parameters.required).toEqual(['note']);
    expect([...hidden]).toEqual(['document_name']);
  });

  it('turns a missing or odd schema into an empty object schema', () => {
    expect(modelSchema(undefined).parameters).toEqual({ type: 'object', properties: {} });
    expect(modelSchema([1, 2]).parameters).toEqual({ type: 'object', properties: {} });
  });
});
