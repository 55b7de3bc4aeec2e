import { describe, expect, it } from 'vitest';
import {
  jsonDeeperThan,
  LineBuffer,
  type LineEvent,
  MAX_LINE_BYTES,
  readLineHead,
  readLineTailId,
} from '../../src/connections/json-lines.js';

const text = (events: LineEvent[]) =>
  events.map((event) => (event.kind === 'line' ? event.line.toString('utf8') : event.kind));

describe('LineBuffer', () => {
  it('splits lines across chunk boundaries, several per chunk', () => {
    const buffer = new LineBuffer();
    expect(text(buffer.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}']);
    expect(buffer.pendingBytes).toBe(4);
    expect(text(buffer.push(Buffer.from(':2')))).toEqual([]);
    expect(text(buffer.push(Buffer.from('}\n{"c":3}\n\n{"d"')))).toEqual(['{"b":2}', '{"c":3}', '']);
    expect(text(buffer.push(Buffer.from(':4}\r\n')))).toEqual(['{"d":4}\r']);
    expect(buffer.pendingBytes).toBe(0);
  });

  it('keeps multi-byte characters split between chunks intact', () => {
    const bytes = Buffer.from('{"t":"héllo ✓"}\n');
    const buffer = new LineBuffer();
    const lines = [...buffer.push(bytes.subarray(0, 8)), ...buffer.push(bytes.subarray(8))];
    expect(text(lines)).toEqual(['{"t":"héllo ✓"}']);
  });

  it('a line up to the limit passes whole', () => {
    const buffer = new LineBuffer(10);
    expect(text(buffer.push(Buffer.from('1234567890\n')))).toEqual(['1234567890']);
  });

  it('drops a line over the limit as it arrives, keeping its head and tail, then reads on', () => {
    const buffer = new LineBuffer(10);
    expect(buffer.push(Buffer.from('12345'))).toEqual([]);
    const over = buffer.push(Buffer.from('678901'));
    expect(over).toEqual([{ kind: 'too-long', head: Buffer.from('12345678901') }]);
    expect(buffer.pendingBytes).toBe(0);
    // Nothing more is held while the rest of the line goes by.
    expect(buffer.push(Buffer.alloc(100_000, 0x78))).toEqual([]);
    expect(buffer.pendingBytes).toBe(0);
    const end = buffer.push(Buffer.from('tail}\nok\n'));
    expect(end[0]).toMatchObject({ kind: 'too-long-end', bytes: 11 + 100_000 + 5 });
    const tail = (end[0] as Extract<LineEvent, { kind: 'too-long-end' }>).tail.toString();
    expect(tail).toHaveLength(1024);
    expect(tail.endsWith('xtail}')).toBe(true);
    expect(text(end.slice(1))).toEqual(['ok']);
  });

  it('reports the end of a line that went over the limit within one chunk', () => {
    const buffer = new LineBuffer(4);
    expect(text(buffer.push(Buffer.from('abcdefgh\nij\n')))).toEqual(['too-long', 'too-long-end', 'ij']);
  });

  it('can be set as high as the largest line a JavaScript string can hold', () => {
    expect(MAX_LINE_BYTES).toBeGreaterThan(500 * 1024 * 1024);
  });
});

describe('which request a line answers', () => {
  it('reads the id from the head when it comes before the result', () => {
    const head = Buffer.from('{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"xxxx');
    expect(readLineHead(head)).toEqual({ id: 17, method: false, object: true });
    expect(readLineHead(Buffer.from(' { "id" : "a\\"b" , "result": 1'))).toMatchObject({ id: 'a"b' });
  });

  it('sees no id in the head of the SDK order, and a method in a request or notification', () => {
    expect(readLineHead(Buffer.from('{"result":{"content":[{"type":"text","text":"xx'))).toEqual({
      method: false,
      object: true,
    });
    expect(readLineHead(Buffer.from('{"method":"notifications/message","params":{"data":"x'))).toEqual({
      method: true,
      object: true,
    });
    expect(readLineHead(Buffer.from('not json at all'))).toEqual({ method: false, object: false });
  });

  it('reads the id from the tail when it is the last key of the message', () => {
    expect(readLineTailId(Buffer.from('xxxx"}]},"jsonrpc":"2.0","id":42}\r'))).toBe(42);
    expect(readLineTailId(Buffer.from('xx"}]},"jsonrpc":"2.0","id":"req-1"}'))).toBe('req-1');
    // A nested "id" ends with more than one brace: not the message's.
    expect(readLineTailId(Buffer.from('{"a":{"id":5}}'))).toBeUndefined();
    expect(readLineTailId(Buffer.from('xxxxx'))).toBeUndefined();
  });
});

describe('jsonDeeperThan', () => {
  const deep = (n: number) => Buffer.from(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

  it('counts nesting on the bytes, at any depth, without recursion', () => {
    expect(jsonDeeperThan(deep(65), 65)).toBe(false);
    expect(jsonDeeperThan(deep(66), 65)).toBe(true);
    expect(jsonDeeperThan(deep(1_000_000), 65)).toBe(true);
    expect(jsonDeeperThan(Buffer.from('[[[[]]]]'), 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const brackets = JSON.stringify({ text: `${'['.repeat(1000)}"\\{` });
    expect(jsonDeeperThan(Buffer.from(brackets), 2)).toBe(false);
  });
});
