import { createHash } from 'node:crypto';
import { normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { describe, expect, it } from 'vitest';
import { measure } from '../src/inject.js';

describe('inject server (file_data_base64 injection) over stdio', () => {
  const server = useExampleServer('inject');

  const call = (args: Record<string, unknown>) =>
    server.client.callTool({ name: 'analyze_document', arguments: args });

  it('declares filename beside file_data_base64, which defaults to empty', async () => {
    const { tools } = await server.client.listTools();
    const schema = tools[0]?.inputSchema;
    expect(tools[0]?.name).toBe('analyze_document');
    expect(Object.keys(schema?.properties ?? {})).toEqual(['instructions', 'filename', 'file_data_base64']);
    expect(schema?.properties?.file_data_base64).toMatchObject({ type: 'string', default: '' });
    expect(schema?.required).toEqual(['instructions', 'filename']);
  });

  it('analyzes the injected bytes and returns the analysis as returned_file_*', async () => {
    const text = 'The quick brown fox\njumps over\r\nthe lazy dog.\n';
    const bytes = Buffer.from(text, 'utf8');
    const result = await call({
      instructions: 'count words',
      filename: 'fox.txt',
      file_data_base64: bytes.toString('base64'),
    });
    const payload = payloadOf(result);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(payload.metrics).toEqual({
      bytes: bytes.length,
      sha256,
      is_text: true,
      characters: text.length,
      words: 9,
      lines: 3,
    });
    expect(payload.analysis).toBe('Document analysis complete: 9 words in 3 lines');
    expect(payload.returned_file_name).toBe('analysis_fox.md');
    const report = Buffer.from(payload.returned_file_base64 as string, 'base64').toString('utf8');
    expect(report).toContain('# Analysis of fox.txt');
    expect(report).toContain('Instructions: count words');
    expect(report).toContain(`| sha256 | ${sha256} |`);
    const normalized = normalizeToolResult(result);
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.form).toBe('file-injection');
    expect(normalized.outcome.files.map((f) => f.name)).toEqual(['analysis_fox.md']);
  });

  it('reports binary content without text counts', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);
    const payload = payloadOf(
      await call({ instructions: 'x', filename: 'blob.bin', file_data_base64: bytes.toString('base64') }),
    );
    expect(payload.metrics).toMatchObject({ bytes: 7, is_text: false, words: 0 });
    expect(payload.analysis).toBe('Document analysis complete: 7 bytes of binary data');
  });

  it('answers a missing injection with E_FILE_NOT_FOUND and bad base64 with E_INVALID_INPUT', async () => {
    const missing = await call({ instructions: 'x', filename: 'nothing.txt' });
    expect(missing.isError).toBe(true);
    expect(payloadOf(missing).meta_data).toMatchObject({ error_code: 'E_FILE_NOT_FOUND' });
    const bad = await call({ instructions: 'x', filename: 'a.txt', file_data_base64: 'not*base64' });
    expect(payloadOf(bad).meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
  });

  it('counts lines without a phantom last line', () => {
    expect(measure(Buffer.from('')).lines).toBe(0);
    expect(measure(Buffer.from('one')).lines).toBe(1);
    expect(measure(Buffer.from('one\n')).lines).toBe(1);
    expect(measure(Buffer.from('one\n\n')).lines).toBe(2);
  });
});
