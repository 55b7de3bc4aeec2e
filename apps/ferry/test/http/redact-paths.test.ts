import { MAX_RESULT_DEPTH } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { createPathRedactor, MAX_REDACTED_DEPTH } from '../../src/http/redact-paths.js';

const redact = createPathRedactor({ workspace: '/srv/ferry/ws', data: '/srv/ferry/data' });

/** `leaf` inside `levels` levels of objects: the outermost object is level 1. */
function nested(levels: number, leaf: unknown): unknown {
  let value: unknown = { path: leaf };
  for (let level = levels; level > 1; level--) value = { down: value };
  return value;
}

function leafOf(value: unknown): unknown {
  let node = value as { down?: unknown; path?: unknown };
  while (node.down !== undefined) node = node.down as { down?: unknown; path?: unknown };
  return node.path;
}

describe('createPathRedactor', () => {
  it('replaces each root with its label in strings, arrays and objects', () => {
    expect(
      redact({ message: 'wrote /srv/ferry/ws/alice/x.csv', list: ['/srv/ferry/data/blobs', 3, null] }),
    ).toEqual({ message: 'wrote <workspace>/alice/x.csv', list: ['<data>/blobs', 3, null] });
  });

  it('redacts host paths at every depth a result may have (33 to 64 levels too)', () => {
    for (const levels of [1, 32, 33, 34, 48, MAX_RESULT_DEPTH]) {
      expect(leafOf(redact(nested(levels, '/srv/ferry/ws/alice/x.csv'))), `${levels} levels`).toBe(
        '<workspace>/alice/x.csv',
      );
    }
  });

  it('redacts a result 64 levels deep inside a call response and a record around it', () => {
    const result = nested(MAX_RESULT_DEPTH, 'see /srv/ferry/data/users/1');
    const record = {
      call: { callId: 'c1', response: { status: 'finished', forModel: { results: result } } },
    };
    expect(leafOf(redact(record).call.response.forModel.results)).toBe('see <data>/users/1');
  });

  it(`walks ${MAX_REDACTED_DEPTH} levels, no fewer than results may have`, () => {
    expect(MAX_REDACTED_DEPTH).toBeGreaterThanOrEqual(MAX_RESULT_DEPTH);
    expect(leafOf(redact(nested(MAX_REDACTED_DEPTH, '/srv/ferry/ws/a')))).toBe('<workspace>/a');
  });
});
