import { describe, expect, it } from 'vitest';
import { findFileInputs } from '../src/protocol/mcp-file.js';
import { findFileNameArguments } from '../src/protocol/mcp-file-name.js';

const file = { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['text/csv'] } };
const files = { type: 'array', items: file };
const text = (description?: string) => ({ type: 'string', ...(description ? { description } : {}) });

function pairs(properties: Record<string, unknown>) {
  const schema = { type: 'object', properties };
  return findFileNameArguments(schema, findFileInputs(schema).inputs).map(
    ({ argument, fileInput, rule }) => `${argument}->${fileInput} (${rule})`,
  );
}

describe('findFileNameArguments: by name', () => {
  it.each(['document_name', 'documentName', 'document_filename', 'documentFilename', 'document_file_name'])(
    '%s names the input document',
    (name) => {
      expect(pairs({ document: file, [name]: text(), other: text() })).toEqual([`${name}->document (name)`]);
    },
  );

  it.each(['filename', 'file_name', 'fileName', 'original_filename'])(
    'the generic %s pairs with the only file input',
    (name) => {
      expect(pairs({ document: file, [name]: text() })).toEqual([`${name}->document (name)`]);
    },
  );

  it('`filename` beside `file_data_base64` stays the file-injection pattern', () => {
    expect(pairs({ document: file, filename: text(), file_data_base64: text() })).toEqual([]);
    expect(pairs({ document: file, file_name: text(), file_data_base64: text() })).toEqual([
      'file_name->document (name)',
    ]);
  });

  it('the generic names do not pair when there are two file inputs, the specific ones do', () => {
    expect(pairs({ a: file, b: file, filename: text() })).toEqual([]);
    expect(pairs({ a: file, b: file, a_name: text(), bName: text() })).toEqual([
      'a_name->a (name)',
      'bName->b (name)',
    ]);
  });

  it('the specific name wins over the generic one; the generic one stays an ordinary argument', () => {
    expect(pairs({ document: file, filename: text(), document_name: text() })).toEqual([
      'document_name->document (name)',
    ]);
  });

  it('multi-file inputs are not paired', () => {
    expect(pairs({ documents: files, documents_name: text(), filename: text() })).toEqual([]);
    // An array input beside a single one: the generic names need the single one to be alone.
    expect(pairs({ document: file, extra: files, filename: text() })).toEqual([]);
  });

  it('only ordinary strings: not enums, consts, formats, other types, x-mcp-file or other conventions', () => {
    for (const candidate of [
      { type: 'string', enum: ['a.csv'] },
      { type: 'string', const: 'a.csv' },
      { type: 'string', format: 'uri' },
      { type: 'integer' },
      { type: 'array', items: { type: 'string' } },
      file,
    ]) {
      expect(pairs({ document: file, document_name: candidate })).toEqual([]);
    }
    expect(pairs({ document: file, filenames: text('the file names') })).toEqual([]);
  });
});

describe('findFileNameArguments: by description', () => {
  it('a description about the file name pairs with the only file input', () => {
    expect(pairs({ document: file, title: text('Original file name of the upload') })).toEqual([
      'title->document (description)',
    ]);
    expect(pairs({ document: file, label: text('The name of the uploaded file') })).toEqual([
      'label->document (description)',
    ]);
  });

  it('with several file inputs the description must name the field', () => {
    expect(pairs({ a: file, b: file, label: text('Original filename') })).toEqual([]);
    expect(pairs({ image: file, table: file, label: text('Original filename of the table') })).toEqual([
      'label->table (description)',
    ]);
  });

  it('no pairing for outputs, unrelated text or an ambiguous pair', () => {
    expect(pairs({ document: file, out: text('File name to save the result under') })).toEqual([]);
    expect(pairs({ document: file, target: text('Output filename') })).toEqual([]);
    expect(pairs({ document: file, note: text('A note about the document') })).toEqual([]);
    expect(pairs({ document: file, a: text('file name'), b: text('original filename') })).toEqual([]);
  });

  it('a schema without file inputs or properties pairs nothing', () => {
    expect(findFileNameArguments({ type: 'object', properties: { filename: text() } }, [])).toEqual([]);
    expect(findFileNameArguments(undefined, [])).toEqual([]);
  });
});
