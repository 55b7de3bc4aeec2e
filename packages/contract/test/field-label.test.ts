import { describe, expect, it } from 'vitest';
import { fieldLabel } from '../src/protocol/field-label.js';

describe('fieldLabel', () => {
  it('makes a property name readable unless the schema has a title', () => {
    expect(fieldLabel('chart_column', {})).toBe('Chart column');
    expect(fieldLabel('maxRows', {})).toBe('Max Rows');
    expect(fieldLabel('x-mcp-file', {})).toBe('X mcp file');
    expect(fieldLabel('rows', { title: 'Row count' })).toBe('Row count');
    expect(fieldLabel('rows', { title: '  ' })).toBe('Rows');
  });
});
