import { describe, expect, it } from 'vitest';
import { normalizeToolResult } from '../src/normalize/normalize-tool-result.js';
import {
  DEFAULT_MAX_RESULT_BYTES,
  exceedsDepth,
  formatLimitBytes,
  MAX_RESULT_DEPTH,
} from '../src/normalize/result-limits.js';

/** `{ a: { a: … 1 } }`, `depth` objects deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('exceedsDepth', () => {
  it('counts objects and arrays, the value itself as level 1', () => {
    expect(exceedsDepth(nested(64), 64)).toBe(false);
    expect(exceedsDepth(nested(65), 64)).toBe(true);
    expect(exceedsDepth([[[]]], 2)).toBe(true);
    expect(exceedsDepth('text', 0)).toBe(false);
  });

  it('answers for any depth without recursing', () => {
    expect(exceedsDepth(nested(1_000_000))).toBe(true);
  });
});

describe('formatLimitBytes', () => {
  it('names limits in binary units', () => {
    expect(formatLimitBytes(DEFAULT_MAX_RESULT_BYTES)).toBe('64 MiB');
    expect(formatLimitBytes(1024)).toBe('1 KiB');
    expect(formatLimitBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(formatLimitBytes(100)).toBe('100 bytes');
  });
});

describe('normalizeToolResult and deep results', () => {
  const tooDeep = `the result is nested deeper than ${MAX_RESULT_DEPTH} levels, the most Ferry reads`;

  it('refuses structuredContent nested past the limit', () => {
    const result = { content: [], structuredContent: { results: nested(100_000) } };
    expect(normalizeToolResult(result)).toEqual({ ok: false, error: tooDeep });
  });

  it('refuses a JSON text block nested past the limit (JSON.parse itself copes with it)', () => {
    const text = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(normalizeToolResult({ content: [{ type: 'text', text }] })).toEqual({ ok: false, error: tooDeep });
  });

  it('reads results within the limit', () => {
    const result = normalizeToolResult({ content: [], structuredContent: { results: nested(60) } });
    expect(result.ok).toBe(true);
  });
});
