import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NormalizeOptions, normalizeToolResult } from '../src/normalize/normalize-tool-result.js';

// One JSON file per tool-result form under fixtures/<convention>/<case>.json: the input, the
// options and the exact expected ToolOutcome. FERRY_UPDATE_FIXTURES=1 rewrites `expected` from the
// current code — only for a change whose every diff line was read and meant.
const root = join(import.meta.dirname, 'fixtures');
const fixtureFiles = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort();

interface Fixture {
  description: string;
  options?: NormalizeOptions;
  input: unknown;
  expected?: unknown;
}

describe('normalizeToolResult fixtures', () => {
  it('has fixtures for every convention', () => {
    const conventions = new Set(fixtureFiles.map((file) => file.split('/')[0]));
    expect([...conventions].sort()).toEqual(['file-injection', 'legacy-arrays', 'mcp', 'v2', 'v2.1']);
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(25);
  });

  for (const file of fixtureFiles) {
    const path = join(root, file);
    const fixture = JSON.parse(readFileSync(path, 'utf8')) as Fixture;
    it(`${relative(root, path)}: ${fixture.description}`, () => {
      const result = normalizeToolResult(fixture.input, fixture.options);
      if (process.env.FERRY_UPDATE_FIXTURES === '1') {
        writeFileSync(path, `${JSON.stringify({ ...fixture, expected: result }, null, 2)}\n`);
      }
      expect(fixture.expected, 'fixture has no expected outcome yet').toBeDefined();
      expect(result).toEqual(fixture.expected);
    });
  }
});

describe('normalizeToolResult edge cases', () => {
  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['text', 'string'],
    [42, 'number'],
    [undefined, 'undefined'],
  ])('refuses %j as a tool result', (input, described) => {
    expect(normalizeToolResult(input)).toEqual({
      ok: false,
      error: `tool result must be an object, got ${described}`,
    });
  });

  it('never throws on hostile shapes', () => {
    const hostile: unknown[] = [
      { content: 'x' },
      { content: [{ type: 'text' }] },
      { content: [{ type: 'image', data: 5 }] },
      { content: [{ type: 'resource' }] },
      { content: [{ type: 'resource_link' }] },
      { structuredContent: [1, 2] },
      { structuredContent: { artifacts: 'nope', deferred_artifacts: {}, display: 3, canvas: [] } },
      { structuredContent: { artifacts: [null, 1, 'a', { name: 5 }], returned_file_names: 'a' } },
      { structuredContent: { returned_file_name: 1, returned_file_base64: {} } },
      { structuredContent: { meta_data: 'x', retryable: 'yes', results: undefined } },
      { structuredContent: { artifacts: [{ name: 'a', b64: 'YQ==', mime: 'text/plain', size: -1 }] } },
      { structuredContent: { __proto__: { polluted: true }, results: 1 } },
      { content: [{ type: 'text', text: '{"__proto__": {"polluted": true}}' }] },
    ];
    for (const input of hostile) {
      const result = normalizeToolResult(input);
      expect(result.ok).toBe(true);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps the first JSON text block as the payload and warns about a second', () => {
    const result = normalizeToolResult({
      content: [
        { type: 'text', text: '{"results": 1}' },
        { type: 'text', text: '{"results": 2}' },
      ],
    });
    expect(result).toMatchObject({ ok: true, outcome: { results: 1, form: 'json' } });
    if (result.ok)
      expect(result.outcome.warnings).toEqual(['2 JSON objects in text blocks; the first is the result']);
  });

  it('uses the default deferred expiry from the options', () => {
    const result = normalizeToolResult(
      {
        structuredContent: {
          results: 1,
          deferred_artifacts: [{ name: 'a.txt', b64: 'YQ==', mime: 'text/plain' }],
        },
      },
      { deferredExpiresHours: 5 },
    );
    expect(result.ok && result.outcome.deferred[0]?.deferred).toEqual({ nextActions: [], expiresHours: 5 });
  });
});
