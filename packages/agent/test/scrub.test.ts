import { describe, expect, it } from 'vitest';
import { scrubText, scrubValue } from '../src/scrub.js';
import { fitText } from '../src/tool-result.js';

const B64 = 'iVBORw0KGgoAAAANSUhEUgAAAoAAAAFoCAYAAAB'.repeat(8);

describe('the defensive scrub of tool results', () => {
  it('removes data URIs, base64 runs, signed links, file API links, workspace and host paths, secrets', () => {
    const text = [
      `img data:image/png;base64,${B64}`,
      `raw ${B64}`,
      'get https://files.example/x.csv?token=abc.def&x=1',
      'see http://127.0.0.1:8787/api/files/123/content',
      'wrote /tmp/alice/outputs/report.html',
      'host /srv/ferry/data/users/1/2',
      'key sk-live-123456',
      'auth Bearer abcdefghijklmnop',
      'plain https://example.com/page and /usr/bin/env and ACGTACGT',
    ].join('\n');
    const out = scrubText(text, {
      username: 'alice',
      hostPaths: ['/srv/ferry/data'],
      secrets: ['sk-live-123456'],
    });
    expect(out).toBe(
      [
        'img [data URI omitted]',
        `raw [base64, ${B64.length} characters omitted]`,
        'get [link omitted]',
        'see [link omitted]',
        'wrote report.html',
        'host 2',
        'key [redacted]',
        'auth Bearer [redacted]',
        'plain https://example.com/page and /usr/bin/env and ACGTACGT',
      ].join('\n'),
    );
  });

  it('walks objects and arrays, keys included', () => {
    expect(scrubValue({ '/tmp/bob/a.txt': ['/tmp/bob/b/c.txt', 3, null] }, { username: 'bob' })).toEqual({
      'a.txt': ['c.txt', 3, null],
    });
  });

  it('cuts long text with a note and keeps the total within the limit', () => {
    const long = 'x'.repeat(10_000);
    const cut = fitText(long, 1000);
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(
      /\n\[truncated by Ferry: the result has 10000 characters, only the first \d+ are shown\./,
    );
    expect(fitText('short', 1000)).toBe('short');
  });
});
