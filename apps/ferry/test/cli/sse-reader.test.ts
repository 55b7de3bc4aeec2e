import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/call-command.js';
import { parseStream, type SseEvent } from '../../src/cli/sse-reader.js';

async function parse(chunks: string[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  await parseStream(
    (async function* () {
      for (const chunk of chunks) yield Buffer.from(chunk);
    })(),
    (event) => events.push(event),
  );
  return events;
}

describe('parseStream', () => {
  it('reads ids, types and multi-line data across chunk boundaries and line endings', async () => {
    expect(
      await parse([
        'retry: 2000\n\n: comment\nid: 1\nevent: sta',
        'rted\ndata: {"a":1}\n\r\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n',
        'data: z\n\n',
      ]),
    ).toEqual([
      { id: '1', event: 'started', data: '{"a":1}' },
      { id: '2', event: 'message', data: 'x\ny' },
      { id: '2', event: 'message', data: 'z' },
    ]);
  });

  it('keeps one event whole when a CRLF falls across two chunks', async () => {
    // A lone \r ends a line, but \r then \n in the next chunk is one line end, not two (which
    // would be the blank line that dispatches an event).
    expect(await parse(['event: progress\r\ndata: {"a":1}\r', '\ndata: {"b":2}\r\n\r\n'])).toEqual([
      { event: 'progress', data: '{"a":1}\n{"b":2}' },
    ]);
  });

  it('ignores an unfinished event at the end', async () => {
    expect(await parse(['data: half'])).toEqual([]);
  });
});

describe('parseArgs', () => {
  it('parses JSON-looking values and keeps the rest as strings', () => {
    expect(
      parseArgs([
        'n=3',
        'b=true',
        'list=[1,2]',
        'obj={"k":1}',
        's=hello',
        'e=',
        'eq=a=b',
        'bad={nope',
        'q="7"',
      ]),
    ).toEqual({
      n: 3,
      b: true,
      list: [1, 2],
      obj: { k: 1 },
      s: 'hello',
      e: '',
      eq: 'a=b',
      bad: '{nope',
      q: '7',
    });
  });

  it('refuses an argument without a key', () => {
    expect(() => parseArgs(['=x'])).toThrow(/key=value/);
    expect(() => parseArgs(['novalue'])).toThrow(/key=value/);
  });
});
