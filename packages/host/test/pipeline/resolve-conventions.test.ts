import { describe, expect, it } from 'vitest';
import { resolveConventions } from '../../src/pipeline/resolve-conventions.js';

const s = { type: 'string' };

describe('resolveConventions', () => {
  it('finds username, filename, filenames, file_names and file_data_base64 beside filename', () => {
    const c = resolveConventions({
      type: 'object',
      properties: {
        username: s,
        filename: s,
        filenames: { type: 'array', items: s },
        file_names: {},
        file_data_base64: s,
        q: s,
      },
    });
    expect(c).toMatchObject({
      username: true,
      filename: true,
      filenames: true,
      fileNames: true,
      fileDataBase64: true,
      allowsUndeclared: false,
      fileInputs: [],
    });
    expect([...c.declared].sort()).toEqual([
      'file_data_base64',
      'file_names',
      'filename',
      'filenames',
      'q',
      'username',
    ]);
  });

  it('file_data_base64 without filename is an ordinary argument', () => {
    const c = resolveConventions({ type: 'object', properties: { file_data_base64: s } });
    expect(c.fileDataBase64).toBe(false);
    expect(c.declared.has('file_data_base64')).toBe(true);
  });

  it('finds x-mcp-file inputs (single and array) and they win over a conventional name', () => {
    const file = { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/png'], maxSize: 10 } };
    const c = resolveConventions({
      type: 'object',
      properties: { filename: file, images: { type: 'array', items: { ...file, 'x-mcp-file': {} } } },
      required: ['filename'],
    });
    expect(c.filename).toBe(false);
    expect(c.fileInputs).toEqual([
      {
        path: ['filename'],
        multiple: false,
        descriptor: { accept: ['image/png'], maxSize: 10 },
        required: true,
      },
      { path: ['images'], multiple: true, descriptor: {}, required: false },
    ]);
  });

  it('keeps warnings for ignored x-mcp-file keywords', () => {
    const c = resolveConventions({ type: 'object', properties: { n: { type: 'number', 'x-mcp-file': {} } } });
    expect(c.fileInputs).toEqual([]);
    expect(c.warnings[0]).toMatch(/^inputSchema\/properties\/n: x-mcp-file is only valid/);
  });

  it('additionalProperties true or a schema lets undeclared arguments through; a missing schema declares nothing', () => {
    expect(resolveConventions({ type: 'object', additionalProperties: true }).allowsUndeclared).toBe(true);
    expect(resolveConventions({ type: 'object', additionalProperties: s }).allowsUndeclared).toBe(true);
    expect(resolveConventions({ type: 'object', additionalProperties: false }).allowsUndeclared).toBe(false);
    const none = resolveConventions(undefined);
    expect(none.declared.size).toBe(0);
    expect(none.username).toBe(false);
  });
});
