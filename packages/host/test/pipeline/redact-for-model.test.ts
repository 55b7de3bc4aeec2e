// The redaction for the model runs on whatever a tool returned, up to maxResultBytes (64 MiB):
// it must take linear time on hostile text and never recurse without bound. (The ordinary cases
// are in answer.test.ts.)
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_REDACTION, redactString, redactValue } from '../../src/pipeline/redact-for-model.js';

const MIB = 1024 * 1024;

function timed<T>(action: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = action();
  return { result, ms: performance.now() - started };
}

describe('redactString on large and hostile text', () => {
  it('summarizes a 10 MiB base64 run (a regular expression overflows its stack on it)', () => {
    const run = randomBytes((10 * MIB * 3) / 4).toString('base64');
    expect(redactString(`before ${run}== after`, NO_REDACTION)).toBe(
      `before [base64, ${10 * MIB + 2} characters omitted] after`,
    );
  });

  it('summarizes a 10 MiB data URI', () => {
    const payload = randomBytes(3 * MIB).toString('base64');
    expect(redactString(`<img src="data:image/png;base64,${payload}">`, NO_REDACTION)).toBe(
      `<img src="data:image/png;base64,[${3 * MIB} bytes]">`,
    );
  });

  it('takes linear time on text that made the data URI pattern backtrack', () => {
    // `data:[^,…]*;base64,` tried every `data:` against the rest of the text: quadratic.
    const text = 'data:'.repeat(200_000);
    const { result, ms } = timed(() => redactString(text, NO_REDACTION));
    expect(result).toBe(text);
    expect(ms).toBeLessThan(1000);
  });

  it('keeps what only looks like a data URI or base64', () => {
    const plain = [
      'data:text/plain,hello',
      'data:image/png;base64',
      'xdata:;base64,AAAA is still one',
      'ACGT'.repeat(200),
      'a1B2'.repeat(100),
    ].join(' ');
    expect(redactString(plain, NO_REDACTION)).toBe(
      plain.replace('xdata:;base64,AAAA', 'xdata:text/plain;base64,[3 bytes]'),
    );
  });
});

describe('redactValue', () => {
  it('stops at 64 levels and hides what is below instead of passing it unredacted', () => {
    let deep: unknown = 'data:image/png;base64,iVBORw0KGgo=';
    for (let i = 0; i < 100; i++) deep = { a: deep };
    let node = redactValue(deep, NO_REDACTION) as { a: unknown };
    let levels = 0;
    while (typeof node === 'object' && node !== null) {
      node = node.a as { a: unknown };
      levels++;
    }
    expect(levels).toBe(64);
    expect(node).toBe('[nested too deep]');
  });
});
