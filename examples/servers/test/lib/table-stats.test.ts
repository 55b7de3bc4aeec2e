import { describe, expect, it } from 'vitest';
import { parseNumber, TableStats } from '../../src/lib/table-stats.js';

describe('TableStats', () => {
  it('treats a column as numeric only when every non-empty value is a number', () => {
    const stats = new TableStats(['name', 'value', 'mixed', 'empty']);
    stats.add(['a', '1.5', '1', '']);
    stats.add(['b', '', 'x', '']);
    stats.add(['c', '-3', '2']);
    expect(stats.rows).toBe(3);
    expect(stats.columns()).toEqual([
      { name: 'name', numeric: false, count: 3 },
      { name: 'value', numeric: true, count: 2, min: -3, max: 1.5, sum: -1.5, mean: -0.75 },
      { name: 'mixed', numeric: false, count: 3 },
      { name: 'empty', numeric: false, count: 0 },
    ]);
    expect(stats.firstNumericColumn()).toBe(1);
  });

  it('parses decimal numbers only', () => {
    expect([' 12', '-3.5', '1e3', '.5', '+7'].map((text) => parseNumber(text.trim()))).toEqual([
      12, -3.5, 1000, 0.5, 7,
    ]);
    expect(['0x10', 'Infinity', '1,5', '', 'NaN'].map(parseNumber)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
