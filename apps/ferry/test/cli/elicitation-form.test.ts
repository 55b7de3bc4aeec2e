// The terminal form for a server's question: every MCP form field type, defaults, validation and
// asking again, decline/cancel/end of input, and piped answers that arrive all at once (the
// readline source must not drop lines that come before their prompt).
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import {
  askForm,
  type FileResolver,
  type FormField,
  formFields,
  parseAnswer,
} from '../../src/cli/elicitation-form.js';
import { createLineSource, type LineSource } from '../../src/cli/line-source.js';

const SCHEMA = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', title: 'Email' },
    nickname: { type: 'string', minLength: 2, maxLength: 5, default: 'bob' },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    urgent: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['r', 'g', 'b'], enumNames: ['Red', 'Green', 'Blue'] },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1 },
    due: { type: 'string', format: 'date' },
    document: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['text/csv'] } },
  },
  required: ['email', 'ratio', 'color', 'document'],
};

/** Scripted answers; `null` is the end of input. Records everything said and asked. */
function scripted(answers: (string | null)[]): LineSource & { transcript: string[] } {
  const transcript: string[] = [];
  return {
    terminal: false,
    transcript,
    async ask(query, signal) {
      transcript.push(query);
      if (signal?.aborted) return null;
      const next = answers.shift();
      if (next === undefined) throw new Error(`no scripted answer left for: ${query}`);
      return next;
    },
    say: (line) => transcript.push(line),
    idle: () => {},
    close: () => {},
  };
}

const resolver: FileResolver = async (answer) =>
  answer === 'sales.csv'
    ? { ok: true, id: '11111111-1111-4111-8111-111111111111', name: 'sales.csv' }
    : { ok: false, reason: `no file called ${answer}` };

function fields(): FormField[] {
  return formFields({
    requestedSchema: SCHEMA,
    fileFields: [{ name: 'document', required: true, accept: ['text/csv'] }],
  });
}

describe('formFields', () => {
  it('turns each MCP form property into a field of its kind, in order', () => {
    const list = fields();
    expect(list.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['email', 'string', true],
      ['nickname', 'string', false],
      ['ratio', 'number', true],
      ['count', 'integer', false],
      ['urgent', 'boolean', false],
      ['color', 'enum', true],
      ['size', 'enum', false],
      ['tags', 'multi-enum', false],
      ['due', 'string', false],
      ['document', 'file', true],
    ]);
    expect(list.find((f) => f.name === 'color')?.options).toEqual([
      { value: 'r', title: 'Red' },
      { value: 'g', title: 'Green' },
      { value: 'b', title: 'Blue' },
    ]);
    expect(list.find((f) => f.name === 'size')?.options?.map((o) => o.title)).toEqual(['Small', 'Large']);
    expect(list.find((f) => f.name === 'document')).toMatchObject({ accept: ['text/csv'], multiple: false });
  });
});

describe('parseAnswer', () => {
  it('checks each type and its limits', () => {
    const byName = new Map(fields().map((f) => [f.name, f]));
    const field = (name: string) => byName.get(name) as FormField;
    expect(parseAnswer(field('email'), 'me@example.org')).toEqual({ ok: true, value: 'me@example.org' });
    expect(parseAnswer(field('email'), 'nope')).toMatchObject({
      ok: false,
      reason: 'must be an email address',
    });
    expect(parseAnswer(field('nickname'), 'x')).toMatchObject({ ok: false });
    expect(parseAnswer(field('nickname'), 'toolong')).toMatchObject({ ok: false });
    expect(parseAnswer(field('ratio'), '0.5')).toEqual({ ok: true, value: 0.5 });
    expect(parseAnswer(field('ratio'), '2')).toMatchObject({ ok: false, reason: 'must be at most 1' });
    expect(parseAnswer(field('ratio'), 'half')).toMatchObject({ ok: false, reason: 'must be a number' });
    expect(parseAnswer(field('count'), '2.5')).toMatchObject({ ok: false, reason: 'must be an integer' });
    expect(parseAnswer(field('count'), '0')).toMatchObject({ ok: false, reason: 'must be at least 1' });
    expect(parseAnswer(field('urgent'), 'YES')).toEqual({ ok: true, value: true });
    expect(parseAnswer(field('urgent'), 'n')).toEqual({ ok: true, value: false });
    expect(parseAnswer(field('urgent'), 'maybe')).toMatchObject({ ok: false });
    expect(parseAnswer(field('color'), '2')).toEqual({ ok: true, value: 'g' });
    expect(parseAnswer(field('color'), 'blue')).toEqual({ ok: true, value: 'b' });
    expect(parseAnswer(field('color'), 'x')).toMatchObject({ ok: false, reason: 'must be one of r, g, b' });
    expect(parseAnswer(field('tags'), 'a, 3,a')).toEqual({ ok: true, value: ['a', 'c'] });
    expect(parseAnswer(field('tags'), 'a,z')).toMatchObject({ ok: false });
    expect(parseAnswer(field('due'), '2025-02-29')).toMatchObject({ ok: false });
    expect(parseAnswer(field('due'), '2024-02-29')).toEqual({ ok: true, value: '2024-02-29' });
  });
});

describe('askForm', () => {
  it('asks every field, takes defaults on Enter, asks again after a bad answer', async () => {
    const lines = scripted([
      'not-an-email',
      'me@example.org',
      '', // nickname: default bob
      '', // ratio is required: asked again
      '1.5',
      '0.25',
      '', // count: default 3
      'y',
      'purple',
      '3',
      '', // size: optional, skipped
      'a,b',
      '!!not a date', // `!!` is a literal `!`; still not a date
      '2024-12-31',
      'missing.csv',
      'sales.csv',
    ]);
    const outcome = await askForm(fields(), { lines, resolveFile: resolver });
    expect(outcome).toEqual({
      action: 'accept',
      content: {
        email: 'me@example.org',
        nickname: 'bob',
        ratio: 0.25,
        count: 3,
        urgent: true,
        color: 'b',
        tags: ['a', 'b'],
        due: '2024-12-31',
      },
      files: { document: '11111111-1111-4111-8111-111111111111' },
    });
    const said = lines.transcript.join('\n');
    expect(said).toContain('! must be an email address');
    expect(said).toContain('! required (or !decline / !cancel)');
    expect(said).toContain('! must be at most 1');
    expect(said).toContain('! must be one of r, g, b');
    expect(said).toContain('! must be a date (YYYY-MM-DD)');
    expect(said).toContain('! no file called missing.csv');
    expect(said).toContain('1) Red (r)  2) Green (g)  3) Blue (b)');
    expect(said).toContain('Count (integer; 1 to 10; optional) [3]: ');
    expect(said).toContain('Urgent (y/n; optional) [n]: ');
    expect(said).toMatch(/Document \(file: a local path to upload, or a My Files id or name; text\/csv\): /);
  });

  it('!decline, !cancel and the end of input stop the form', async () => {
    expect(await askForm(fields(), { lines: scripted(['!decline']), resolveFile: resolver })).toEqual({
      action: 'decline',
    });
    expect(
      await askForm(fields(), { lines: scripted(['me@example.org', '!CANCEL']), resolveFile: resolver }),
    ).toEqual({ action: 'cancel' });
    expect(await askForm(fields(), { lines: scripted([null]), resolveFile: resolver })).toEqual({
      action: 'decline',
    });
  });

  it('asks only the named field again, keeping the other answers', async () => {
    const previous = {
      action: 'accept' as const,
      content: { email: 'me@example.org', ratio: 0.5, color: 'r' },
      files: { document: 'old-id' },
    };
    const lines = scripted(['sales.csv']);
    const outcome = await askForm(fields(), { lines, resolveFile: resolver, only: ['document'], previous });
    expect(outcome).toEqual({
      ...previous,
      files: { document: '11111111-1111-4111-8111-111111111111' },
    });
    expect(lines.transcript.filter((line) => line.endsWith(': '))).toHaveLength(1);
  });

  it('several files for an array field, one per line, an empty line ends', async () => {
    const list = formFields({
      requestedSchema: {
        type: 'object',
        properties: { docs: { type: 'array', items: { type: 'string', 'x-mcp-file': {} } } },
        required: ['docs'],
      },
      fileFields: [{ name: 'docs', required: true }],
    });
    expect(list[0]).toMatchObject({ kind: 'file', multiple: true });
    const outcome = await askForm(list, {
      lines: scripted(['', 'sales.csv', 'sales.csv', '']),
      resolveFile: resolver,
    });
    expect(outcome).toMatchObject({ files: { docs: [expect.any(String), expect.any(String)] } });
  });

  it('an aborted question (answered elsewhere, call ended) resolves as cancel without asking more', async () => {
    const controller = new AbortController();
    controller.abort();
    const lines = scripted([]);
    expect(await askForm(fields(), { lines, resolveFile: resolver, signal: controller.signal })).toEqual({
      action: 'cancel',
    });
  });
});

describe('createLineSource over a pipe', () => {
  it('keeps answers that arrive before their prompt, echoes them, and returns null at the end', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const lines = createLineSource({ input, output });
    input.end('first\nsecond\nthird\n');
    expect(await lines.ask('1? ')).toBe('first');
    // The whole pipe is read before the next prompts: none of it may be lost.
    await finished(input);
    expect(await lines.ask('2? ')).toBe('second');
    expect(await lines.ask('3? ')).toBe('third');
    expect(await lines.ask('4? ')).toBeNull();
    lines.close();
    expect(written).toBe('1? first\n2? second\n3? third\n4? \n');
  });

  it('an abort ends a pending prompt with null', async () => {
    const input = new PassThrough();
    const lines = createLineSource({ input, output: new PassThrough() });
    const controller = new AbortController();
    const pending = lines.ask('? ', controller.signal);
    controller.abort();
    expect(await pending).toBeNull();
    lines.close();
  });
});

describe('createLineSource on a terminal', () => {
  /** A stand-in terminal: readline runs in terminal mode over it and reads keys as typed. */
  function fakeTerminal(): PassThrough & { isTTY: boolean; setRawMode(mode: boolean): void; raw: boolean } {
    const input = Object.assign(new PassThrough(), {
      isTTY: true,
      raw: false,
      setRawMode(mode: boolean) {
        input.raw = mode;
      },
    });
    return input;
  }

  it('Ctrl-D ends one answer (null) and the next prompt reads again; Ctrl-C calls onInterrupt', async () => {
    const input = fakeTerminal();
    let onInterrupt = () => {};
    const interrupted = new Promise<void>((resolve) => {
      onInterrupt = resolve;
    });
    const lines = createLineSource({ input, output: new PassThrough(), onInterrupt: () => onInterrupt() });
    const first = lines.ask('? ');
    expect(input.raw).toBe(true);
    input.write('abc\r');
    expect(await first).toBe('abc');
    const ended = lines.ask('? ');
    input.write('\x04');
    expect(await ended).toBeNull();
    const again = lines.ask('? ');
    input.write('def\r');
    expect(await again).toBe('def');
    // Between questions the terminal is out of raw mode, so Ctrl-C is a signal again.
    lines.idle();
    expect(input.raw).toBe(false);
    const controller = new AbortController();
    const pending = lines.ask('? ', controller.signal);
    input.write('\x03');
    await interrupted;
    controller.abort();
    expect(await pending).toBeNull();
    lines.close();
  });
});
