import { errorEnvelope, FerryError, normalizeToolResult } from '@ferry/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResult, jsonResult, v21Error, v21Result, withErrorEnvelope } from '../src/results.js';

const textOf = (result: { content: unknown[] }) => JSON.parse((result.content[0] as { text: string }).text);

describe('v21Result', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('maps the input to the wire names and sends it as structuredContent and as JSON text', () => {
    const result = v21Result({
      results: { summary: 'done' },
      metaData: { rows: 3 },
      retryable: true,
      artifacts: [{ name: 'r.html', path: '/tmp/alice/r.html', mime: 'text/html', auto_open: true }],
      deferred: [{ name: 'd.md', path: '/tmp/alice/d.md', mime: 'text/markdown', reason: 'draft' }],
      display: { open_canvas: true, primary_file: 'r.html', storage_action: 'store' },
    });
    const expected = {
      results: { summary: 'done' },
      meta_data: { rows: 3 },
      retryable: true,
      artifacts: [{ name: 'r.html', path: '/tmp/alice/r.html', mime: 'text/html', auto_open: true }],
      deferred_artifacts: [{ name: 'd.md', path: '/tmp/alice/d.md', mime: 'text/markdown', reason: 'draft' }],
      display: { open_canvas: true, primary_file: 'r.html', storage_action: 'store' },
    };
    expect(result.structuredContent).toEqual(expected);
    expect(textOf(result)).toEqual(expected);
    expect(result.isError).toBeUndefined();
    const normalized = normalizeToolResult(result, { workspaceRoot: '/tmp/alice' });
    expect(normalized.ok && normalized.outcome.form).toBe('v2.1');
  });

  it('leaves out what was not given and keeps results that are not objects', () => {
    expect(v21Result({ results: 'plain' }).structuredContent).toEqual({ results: 'plain' });
    expect(v21Result({ results: null }).structuredContent).toEqual({ results: null });
  });

  it('marks the result as an error when meta_data says is_error', () => {
    expect(v21Result({ results: { error: 'x' }, metaData: { is_error: true } }).isError).toBe(true);
  });

  it('refuses invalid output outside production', () => {
    expect(() => v21Result({ results: undefined })).toThrow(/results is required/);
    expect(() => v21Result({ results: 1, display: { mode: 'sideways' as 'split' } })).toThrow(
      /invalid v2.1 output: display.mode/,
    );
    expect(() =>
      v21Result({
        results: 1,
        artifacts: [{ name: 'a.txt', b64: 'YQ==' }],
        display: { primary_file: 'b.txt' },
      }),
    ).toThrow(/primary_file "b.txt" names no artifact/);
  });

  it('does not validate in production', () => {
    vi.stubEnv('NODE_ENV', 'production');
    expect(v21Result({ results: 1, display: { primary_file: 'none' } }).structuredContent).toEqual({
      results: 1,
      display: { primary_file: 'none' },
    });
  });
});

describe('jsonResult and error results', () => {
  it('jsonResult sends any object both ways', () => {
    const result = jsonResult({ returned_file_names: ['a'] }, { isError: true });
    expect(result.structuredContent).toEqual({ returned_file_names: ['a'] });
    expect(textOf(result)).toEqual({ returned_file_names: ['a'] });
    expect(result.isError).toBe(true);
  });

  it('v21Error sends the envelope as an error result', () => {
    const envelope = errorEnvelope('E_FILE_NOT_FOUND', { name: 'x' });
    const result = v21Error(envelope);
    expect(result).toMatchObject({ isError: true, structuredContent: envelope });
  });

  it('errorResult keeps a FerryError code and wraps anything else as E_TOOL_ERROR', () => {
    const ferry = errorResult(new FerryError('E_INVALID_PATH', 'nope', { attempted_path: '/etc' }));
    expect(ferry.structuredContent).toMatchObject({
      results: { error: 'nope' },
      meta_data: { error_code: 'E_INVALID_PATH', details: { attempted_path: '/etc' }, retryable: false },
    });
    expect(errorResult(new Error('boom')).structuredContent).toMatchObject({
      results: { error: 'boom' },
      meta_data: { error_code: 'E_TOOL_ERROR' },
    });
    expect(errorResult('text').structuredContent).toMatchObject({ results: { error: 'text' } });
  });

  it('withErrorEnvelope turns a throw into an error result and passes results through', async () => {
    const ok = withErrorEnvelope(async (n: number) => jsonResult({ n }));
    expect((await ok(2)).structuredContent).toEqual({ n: 2 });
    const failing = withErrorEnvelope(() => {
      throw new FerryError('E_FILE_TOO_LARGE', 'big');
    });
    expect(await failing()).toMatchObject({
      isError: true,
      structuredContent: { results: { error: 'big' } },
    });
  });
});
