import { describe, expect, it } from 'vitest';
import { embeddedEnd, fitsAsJsonString, jsonPrefix, previewOf } from '../../src/pipeline/model-preview.js';

/** What `text` costs inside the model's JSON, quotes left out. */
const cost = (text: string) => JSON.stringify(text).length - 2;

const SAMPLE = {
  rows: [
    { id: 1, text: 'say "hi"\nback\\slash', tags: ['a', 'b'], ok: true, none: null },
    { id: 2, text: 'café 🚢 \u0001', nested: { deep: [1.5, -2e-7, 0] } },
  ],
  empty: {},
  list: [],
};

describe('jsonPrefix', () => {
  it('writes what JSON.stringify writes when the value fits', () => {
    const whole = JSON.stringify(SAMPLE);
    expect(jsonPrefix(SAMPLE, whole.length)).toEqual({ text: whole, complete: true });
    expect(jsonPrefix('plain', 7)).toEqual({ text: '"plain"', complete: true });
    expect(jsonPrefix([1, undefined, 'x'], 100)).toEqual({ text: '[1,null,"x"]', complete: true });
    expect(jsonPrefix({ a: undefined, b: 1 }, 100)).toEqual({ text: '{"b":1}', complete: true });
  });

  it('stops one character past the limit, as a prefix of the whole JSON', () => {
    const whole = JSON.stringify(SAMPLE);
    for (const max of [0, 1, 5, 17, 40, whole.length - 1]) {
      const prefix = jsonPrefix(SAMPLE, max);
      expect(prefix.complete).toBe(false);
      expect(prefix.text).toBe(whole.slice(0, max + 1));
    }
  });

  it("maps every string value it writes, labelled by its key (an array's for its items), never keys", () => {
    const seen: string[] = [];
    const prefix = jsonPrefix(
      { token: 'abc', ids: ['x', 'y'], nested: { name: 'n' } },
      1000,
      (text, label) => {
        seen.push(`${label}=${text}`);
        return text.toUpperCase();
      },
    );
    expect(prefix).toEqual({ text: '{"token":"ABC","ids":["X","Y"],"nested":{"name":"N"}}', complete: true });
    expect(seen).toEqual(['token=abc', 'ids=x', 'ids=y', 'name=n']);
    // Only what is written is mapped.
    seen.length = 0;
    jsonPrefix({ a: 'first', b: 'second' }, 8, (text, label) => {
      seen.push(`${label}=${text}`);
      return text;
    });
    expect(seen).toEqual(['a=first']);
  });

  it('escapes only the part of a long string it keeps', () => {
    const long = `"${'x'.repeat(5_000_000)}`;
    const prefix = jsonPrefix({ long }, 20);
    expect(prefix).toEqual({ text: JSON.stringify({ long }).slice(0, 21), complete: false });
  });
});

describe('embeddedEnd', () => {
  it('counts escapes as JSON.stringify writes them and never splits a surrogate pair', () => {
    const text = 'a"b\\c\nd\u0001e🚢f\ud800g';
    for (let budget = 0; budget <= cost(text); budget++) {
      const end = embeddedEnd(text, budget);
      expect(cost(text.slice(0, end))).toBeLessThanOrEqual(budget);
      if (end < text.length) {
        // The next character (a whole pair for the emoji) would not fit.
        const next = text.codePointAt(end) as number;
        expect(cost(text.slice(0, end + (next > 0xffff ? 2 : 1)))).toBeGreaterThan(budget);
      }
    }
    expect(embeddedEnd(text, cost(text))).toBe(text.length);
  });

  it('fitsAsJsonString counts the quotes', () => {
    expect(fitsAsJsonString('ab"', 6)).toBe(true);
    expect(fitsAsJsonString('ab"', 5)).toBe(false);
  });
});

describe('previewOf', () => {
  it('cuts JSON before a comma near the end, within the budget', () => {
    const json = JSON.stringify({ rows: Array.from({ length: 50 }, (_, id) => ({ id, name: `row ${id}` })) });
    const preview = previewOf(json, 300, true);
    expect(cost(preview)).toBeLessThanOrEqual(300);
    expect(json.startsWith(preview)).toBe(true);
    expect(json[preview.length]).toBe(',');
    expect(preview.length).toBeGreaterThan(300 * 0.5);
  });

  it('never ends JSON inside an escape sequence', () => {
    const json = JSON.stringify(`${'\\'.repeat(40)}${'"'.repeat(40)}${'\u0002'.repeat(40)}`);
    for (let budget = 1; budget < 120; budget++) {
      const preview = previewOf(json, budget, true);
      expect(cost(preview)).toBeLessThanOrEqual(budget);
      // A cut escape leaves an odd run of backslashes or a short \u sequence at the end.
      const tail = /\\+(u[0-9a-f]{0,3})?$/.exec(preview);
      if (tail) {
        const run = (tail[0].match(/^\\+/) as RegExpMatchArray)[0].length;
        expect(run % 2 === 0 && tail[1] === undefined, `budget ${budget}: …${preview.slice(-8)}`).toBe(true);
      }
    }
  });

  it('cuts text after a line break near the end, else at a space, else where it must', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of the result`).join('\n');
    const byLine = previewOf(lines, 200, false);
    expect(byLine.endsWith('\n')).toBe(true);
    expect(lines.startsWith(byLine)).toBe(true);
    expect(cost(byLine)).toBeLessThanOrEqual(200);

    const words = 'word '.repeat(100);
    const bySpace = previewOf(words, 99, false);
    expect(bySpace).toBe(words.slice(0, bySpace.length));
    expect(words[bySpace.length]).toBe(' ');

    expect(previewOf('🚢'.repeat(10), 5, false)).toBe('🚢🚢');
    expect(previewOf('short', 100, false)).toBe('short');
  });
});
