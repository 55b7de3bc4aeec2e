import { describe, expect, it } from 'vitest';
import { describeInjected, INJECTED_MARK } from '../../src/tools/injected-params.js';

describe('describeInjected', () => {
  it('marks username, filename + file_data_base64, filenames, file_names and x-mcp-file inputs', () => {
    const schema = {
      type: 'object',
      properties: {
        username: { type: 'string' },
        filename: { type: 'string' },
        file_data_base64: { type: 'string' },
        filenames: { type: 'array', items: { type: 'string' } },
        file_names: { type: 'array', items: { type: 'string' } },
        photo: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/*'], maxSize: 1000 } },
        title: { type: 'string' },
      },
      required: ['photo'],
    };
    const { injected, fileInputs, inputSchema } = describeInjected(schema);
    expect(injected.map((p) => [p.name, p.kind, p.input, p.hiddenFromModel])).toEqual([
      ['username', 'username', 'host', true],
      ['filename', 'filename', 'file-name', false],
      ['file_data_base64', 'file_data_base64', 'host', true],
      ['filenames', 'filenames', 'file-names', false],
      ['file_names', 'file_names', 'file-names', false],
      ['photo', 'x-mcp-file', 'file-picker', true],
    ]);
    expect(fileInputs).toEqual([
      { name: 'photo', multiple: false, required: true, accept: ['image/*'], maxSize: 1000 },
    ]);
    const properties = inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.username?.[INJECTED_MARK]).toBe('username');
    expect(properties.title?.[INJECTED_MARK]).toBeUndefined();
    // The input is not changed.
    expect((schema.properties.username as Record<string, unknown>)[INJECTED_MARK]).toBeUndefined();
  });

  it('file_data_base64 without filename is an ordinary argument; a filename that is an x-mcp-file input follows SEP-2356', () => {
    const { injected } = describeInjected({
      properties: {
        file_data_base64: { type: 'string' },
        filename: { type: 'string', format: 'uri', 'x-mcp-file': {} },
      },
    });
    expect(injected.map((p) => p.kind)).toEqual(['x-mcp-file']);
  });

  it('the filename argument paired with an x-mcp-file input is host-filled and hidden from the model', () => {
    const { injected, inputSchema } = describeInjected({
      properties: {
        document: { type: 'string', format: 'uri', 'x-mcp-file': {} },
        filename: { type: 'string' },
      },
    });
    expect(injected).toEqual([
      { name: 'document', kind: 'x-mcp-file', input: 'file-picker', hiddenFromModel: true },
      { name: 'filename', kind: 'x-mcp-file-name', input: 'host', hiddenFromModel: true },
    ]);
    expect((inputSchema.properties as Record<string, object>).filename).toEqual({
      type: 'string',
      [INJECTED_MARK]: 'x-mcp-file-name',
    });
  });

  it('survives schemas that are not objects', () => {
    expect(describeInjected(undefined).injected).toEqual([]);
    expect(describeInjected({ properties: 'x' }).injected).toEqual([]);
  });
});
