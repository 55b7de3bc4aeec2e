// The stderr log alone, on a manual clock: lines split across chunks, control characters escaped,
// long lines cut without being held, the token bucket per (server, user) and its counts of
// dropped lines. The real server and Ferry's own stderr: test/integration/server-stderr.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createStderrLog,
  escapeControl,
  type ServerStderrRecord,
  writeStderrRecord,
} from '../../src/connections/connection-events.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function setup(options: { burst?: number; linesPerSecond?: number; maxLineChars?: number } = {}) {
  let time = 0;
  const records: ServerStderrRecord[] = [];
  const log = createStderrLog({ sink: (r) => records.push(r), now: () => time, ...options });
  return { log, records, advance: (ms: number) => (time += ms) };
}
const lines = (records: ServerStderrRecord[]) => records.map((r) => ('line' in r ? r.line : r.message));

describe('escapeControl', () => {
  it('writes control characters, DEL, C1 and Unicode line breaks as escapes', () => {
    expect(escapeControl('a\u001b[31mb\tc\rd\u0000e\u007ff\u009bg\u2028h\u2029i')).toBe(
      'a\\x1b[31mb\\tc\\rd\\x00e\\x7ff\\x9bg\\u2028h\\u2029i',
    );
    expect(escapeControl('plain "json" {"level":50} ünïcödé ✓')).toBe('plain "json" {"level":50} ünïcödé ✓');
  });
});

describe('createStderrLog', () => {
  it('makes one labelled record per line, across chunks, without the line ending', () => {
    const { log, records } = setup();
    const out = log.open('conv', 'alice');
    out.write('first\r\nsec');
    out.write('ond\n\nthird without newline');
    expect(lines(records)).toEqual(['first', 'second', '']);
    out.end();
    expect(records.at(-1)).toEqual({
      server: 'conv',
      user: 'alice',
      stream: 'stderr',
      line: 'third without newline',
    });
  });

  it('cuts a line at maxLineChars and only counts the rest, even before its newline arrives', () => {
    const { log, records } = setup({ maxLineChars: 10 });
    const out = log.open('conv', 'alice');
    out.write('0123456789abcdef');
    out.write('x'.repeat(1000));
    out.write('\nnext\n');
    expect(records).toEqual([
      { server: 'conv', user: 'alice', stream: 'stderr', line: '0123456789', truncated: 1016 },
      { server: 'conv', user: 'alice', stream: 'stderr', line: 'next' },
    ]);
  });

  it('lets a burst through, then the rate, and reports what it dropped once per summary period', () => {
    vi.useFakeTimers();
    const { log, records, advance } = setup({ burst: 3, linesPerSecond: 2 });
    const out = log.open('conv', 'alice');
    out.write('1\n2\n3\n4\n5\n');
    expect(lines(records)).toEqual(['1', '2', '3']);
    advance(500); // one token back
    out.write('6\n7\n');
    expect(lines(records)).toEqual(['1', '2', '3', '6']);
    vi.advanceTimersByTime(1000);
    expect(records.at(-1)).toEqual({
      server: 'conv',
      user: 'alice',
      stream: 'stderr',
      dropped: 3,
      message: '3 stderr lines of server conv (user alice) dropped',
    });
  });

  it('shares one bucket between connections of the same server and user, not others', () => {
    const { log, records } = setup({ burst: 2, linesPerSecond: 1 });
    const first = log.open('conv', 'alice');
    first.write('a\nb\n');
    first.end();
    // A restarted server does not get a fresh burst...
    const second = log.open('conv', 'alice');
    second.write('c\n');
    // ...but another user (or server) has its own.
    log.open('conv', 'bob').write('d\n');
    log.open('other', 'alice').write('e\n');
    second.end();
    expect(lines(records)).toEqual([
      'a',
      'b',
      'd',
      'e',
      '1 stderr lines of server conv (user alice) dropped',
    ]);
  });
});

describe('writeStderrRecord (the default sink)', () => {
  it('writes one JSON record per line on stderr, in the shape of Ferry’s own log records', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    writeStderrRecord({ server: 's', user: 'u', stream: 'stderr', line: '{"level":50}' });
    writeStderrRecord({ server: 's', user: 'u', stream: 'stderr', dropped: 2, message: '2 dropped' });
    expect(written.every((text) => text.endsWith('\n') && text.indexOf('\n') === text.length - 1)).toBe(true);
    expect(written.map((text) => JSON.parse(text))).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        msg: 'MCP server stderr',
        server: 's',
        user: 'u',
        stream: 'stderr',
        line: '{"level":50}',
      },
      {
        level: 40,
        time: expect.any(Number),
        msg: '2 dropped',
        server: 's',
        user: 'u',
        stream: 'stderr',
        dropped: 2,
        message: '2 dropped',
      },
    ]);
  });
});
