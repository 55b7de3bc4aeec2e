import { describe, expect, it } from 'vitest';
import { LineBuffer, LineTooLongError, MAX_LINE_BYTES } from '../../src/connections/json-lines.js';

const text = (lines: Buffer[]) => lines.map((line) => line.toString('utf8'));

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

  it('rejects a line over the limit and drops it, then reads on', () => {
    const buffer = new LineBuffer(10);
    buffer.push(Buffer.from('12345'));
    expect(() => buffer.push(Buffer.from('678901'))).toThrowError(LineTooLongError);
    expect(buffer.pendingBytes).toBe(0);
    expect(text(buffer.push(Buffer.from('ok\n')))).toEqual(['ok']);
  });

  it('defaults to the largest line a JavaScript string can hold, far above the SDK 10 MB', () => {
    expect(MAX_LINE_BYTES).toBeGreaterThan(500 * 1024 * 1024);
  });
});
