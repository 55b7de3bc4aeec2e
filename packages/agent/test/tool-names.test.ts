import { describe, expect, it } from 'vitest';
import { createToolNameTable, MODEL_TOOL_NAME } from '../src/tool-names.js';

describe('tool names shown to the model', () => {
  it('keeps plain names readable and maps them back', () => {
    const table = createToolNameTable([
      { server: 'report', tool: 'csv_report' },
      { server: 'slow', tool: 'slow_task' },
    ]);
    expect(table.nameOf({ server: 'report', tool: 'csv_report' })).toBe('report__csv_report');
    expect(table.resolve('slow__slow_task')).toEqual({ server: 'slow', tool: 'slow_task' });
    expect(table.resolve('slow__nope')).toBeUndefined();
    expect(table.resolve('__proto__')).toBeUndefined();
  });

  it('makes names valid, unique and reversible whatever the tools are called', () => {
    const refs = [
      { server: 'a', tool: 'b.c' },
      { server: 'a', tool: 'b_c' },
      { server: 'a', tool: 'b/c' },
      { server: 'a_b', tool: 'c' },
      { server: 'a', tool: 'b__c' },
      { server: 'long', tool: 'x'.repeat(100) },
      { server: 'long', tool: `${'x'.repeat(100)}y` },
      { server: 'u', tool: 'résumé ✓' },
      { server: 'u', tool: '' },
    ];
    const table = createToolNameTable(refs);
    const names = refs.map((ref) => table.nameOf(ref) as string);
    expect(new Set(names).size).toBe(refs.length);
    for (const [i, name] of names.entries()) {
      expect(name).toMatch(MODEL_TOOL_NAME);
      expect(table.resolve(name)).toEqual(refs[i]);
    }
    // The exact, valid name wins; the sanitized look-alike gets a hash.
    expect(table.nameOf({ server: 'a', tool: 'b_c' })).toBe('a__b_c');
    expect(table.nameOf({ server: 'a', tool: 'b.c' })).toMatch(/^a__b_c_[0-9a-f]{8}$/);
  });

  it('gives the same names whatever order the tools are listed in', () => {
    const refs = [
      { server: 'a', tool: 'b.c' },
      { server: 'a', tool: 'b_c' },
      { server: 'z', tool: 't' },
    ];
    const one = createToolNameTable(refs);
    const two = createToolNameTable([...refs].reverse());
    for (const ref of refs) expect(one.nameOf(ref)).toBe(two.nameOf(ref));
  });
});
