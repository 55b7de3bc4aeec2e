import { describe, expect, it } from 'vitest';
import { FILENAME_DESCRIPTION, FILENAMES_DESCRIPTION, modelSchema } from '../src/model-tools.js';

describe('the schema shown to the model', () => {
  it('removes username, file_data_base64 and x-mcp-file inputs, and describes file names', () => {
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
      },
      required: ['filename', 'question'],
      additionalProperties: false,
    });
    expect([...hidden].sort()).toEqual(['file_data_base64', 'picture', 'username']);
  });

  it('keeps file_data_base64 when there is no filename beside it (the host does not fill it then)', () => {
    const { parameters } = modelSchema({
      type: 'object',
      properties: { file_data_base64: { type: 'string' } },
    });
    expect(Object.keys(parameters.properties as object)).toEqual(['file_data_base64']);
  });

  it('turns a missing or odd schema into an empty object schema', () => {
    expect(modelSchema(undefined).parameters).toEqual({ type: 'object', properties: {} });
    expect(modelSchema([1, 2]).parameters).toEqual({ type: 'object', properties: {} });
  });
});
