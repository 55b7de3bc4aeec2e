import { invalidPathError, normalizeToolResult, type ToolOutcome, timeoutError } from '@ferry/contract';
import type { FileRecord } from '@ferry/storage';
import { describe, expect, it } from 'vitest';
import { answer, answerFromError } from '../../src/pipeline/answer.js';
import type { CollectedFile } from '../../src/pipeline/collect-outputs.js';
import { type Redaction, redactString } from '../../src/pipeline/redact-for-model.js';

const redaction: Redaction = {
  references: new Map([
    ['/srv/ferry/ws/alice/input_files/sales.csv', 'sales.csv'],
    ['https://ferry.test/api/files/f1/content?token=abc.def', 'sales.csv'],
  ]),
  workspaceDirs: ['/srv/ferry/ws/alice', '/tmp/alice'],
};

function outcomeOf(value: unknown): ToolOutcome {
  const result = normalizeToolResult({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  if (!result.ok) throw new Error(result.error);
  return result.outcome;
}

function record(name: string, extra: Partial<FileRecord> = {}): FileRecord {
  return {
    id: `id-${name}`,
    owner: 'o',
    name,
    version: 1,
    size: 3,
    mime: 'text/html',
    sha256: '0'.repeat(64),
    source: 'generated',
    category: null,
    description: null,
    sessionId: null,
    persist: true,
    expiresAt: null,
    createdAt: new Date(0),
    info: null,
    blobKey: 'users/o/secret-key',
    ...extra,
  };
}

function output(name: string): CollectedFile {
  return {
    name,
    originalName: name,
    mime: 'text/html',
    viewer: 'html',
    autoOpen: true,
    origin: 'artifact',
    source: { kind: 'base64', base64: 'PGg+', byteLength: 3 },
  };
}

describe('redactString', () => {
  it('replaces handed-over references, workspace prefixes, data URIs, long base64 and tokens', () => {
    const long = Buffer.from(Array.from({ length: 450 }, (_, i) => (i * 37 + 11) % 256)).toString('base64');
    const dna = 'ACGT'.repeat(200);
    const text = [
      'read /srv/ferry/ws/alice/input_files/sales.csv',
      'from https://ferry.test/api/files/f1/content?token=abc.def',
      'wrote /tmp/alice/out/report.html',
      'inline data:image/png;base64,iVBORw0KGgo=',
      `raw ${long}`,
      'see https://example.com/x?a=1&token=SECRET',
      `dna ${dna}`,
    ].join('\n');
    expect(redactString(text, redaction).split('\n')).toEqual([
      'read sales.csv',
      'from sales.csv',
      'wrote out/report.html',
      'inline data:image/png;base64,[8 bytes]',
      'raw [base64, 600 characters omitted]',
      'see https://example.com/x?a=1&token=[redacted]',
      `dna ${dna}`,
    ]);
  });
});

describe('answer', () => {
  it('gives the model results, names and descriptions; the UI ids, viewers and the primary file', () => {
    const outcome = outcomeOf({
      results: { summary: 'done', input: '/srv/ferry/ws/alice/input_files/sales.csv' },
      artifacts: [{ name: 'report.html', b64: 'PGg+', mime: 'text/html', description: 'The report' }],
      display: { open_canvas: true, primary_file: 'report.html' },
    });
    const stored = [
      {
        output: output('report.html'),
        record: record('report.html', { description: 'The report' }),
      },
    ];
    const result = answer({ outcome, stored, rejected: [], unstored: [], warnings: [], redaction });
    expect(result.forModel).toEqual({
      results: { summary: 'done', input: 'sales.csv' },
      files: [{ name: 'report.html', description: 'The report' }],
      isError: false,
    });
    expect(result.forUi.files).toEqual([
      {
        id: 'id-report.html',
        name: 'report.html',
        mime: 'text/html',
        size: 3,
        viewer: 'html',
        primary: true,
        autoOpen: true,
        description: 'The report',
        deferred: false,
        temporary: false,
      },
    ]);
    expect(result.forUi.display).toMatchObject({ openCanvas: true, primaryFile: 'report.html' });
    expect(JSON.stringify(result)).not.toContain('secret-key');
  });

  it('tells the model which files were not stored, without the paths', () => {
    const outcome = outcomeOf({ results: 'x' });
    const rejected = [
      {
        origin: 'artifact' as const,
        index: 0,
        name: 'passwd',
        code: 'E_INVALID_PATH' as const,
        reason: '"/etc/passwd" is outside /tmp/alice/',
        error: invalidPathError({ attemptedPath: '/etc/passwd', allowedPrefix: '/tmp/alice/' }),
      },
    ];
    const result = answer({ outcome, stored: [], rejected, unstored: [], warnings: [] });
    expect(result.forModel.notStored).toEqual([
      { name: 'passwd', reason: 'File operation outside allowed directory' },
    ]);
    expect(JSON.stringify(result.forModel)).not.toContain('/etc/passwd');
    expect(result.forUi.rejected).toEqual(rejected);
  });

  it('summarizes short base64 in structuredContent; ids, hashes, JWTs and named references reach the model', () => {
    const thumbnail = Buffer.from(Array.from({ length: 45 }, (_, i) => (i * 151 + 7) % 256)).toString(
      'base64',
    );
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const uploadId = Buffer.from(Array.from({ length: 60 }, (_, i) => (i * 89 + 3) % 256)).toString(
      'base64url',
    );
    const jwt =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
    const kept = {
      id: '550e8400-e29b-41d4-a716-446655440000',
      sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      session: jwt,
      UploadId: uploadId,
      note: `uploaded as ${uploadId.slice(0, 40)}`,
    };
    const result = normalizeToolResult({
      content: [{ type: 'text', text: 'done' }],
      structuredContent: { results: { ...kept, thumbnail, icons: [png], caption: `raw ${thumbnail} end` } },
    });
    if (!result.ok) throw new Error(result.error);
    const { forModel } = answer({
      outcome: result.outcome,
      stored: [],
      rejected: [],
      unstored: [],
      warnings: [],
    });
    expect(thumbnail).toHaveLength(60);
    expect(forModel.results).toEqual({
      ...kept,
      thumbnail: '[base64, 60 characters omitted]',
      icons: [`[base64, ${png.length} characters omitted]`],
      caption: 'raw [base64, 60 characters omitted] end',
    });
  });

  it("a tool's own error reaches the model as message and suggestion", () => {
    const outcome = outcomeOf({
      results: { error: 'bad input in /tmp/alice/x.csv' },
      meta_data: { is_error: true, error_code: 'E_BAD', details: { suggestion: 'fix it' } },
    });
    const result = answer({ outcome, stored: [], rejected: [], unstored: [], warnings: [], redaction });
    expect(result.forModel).toMatchObject({
      isError: true,
      error: { code: 'E_BAD', message: 'bad input in x.csv', suggestion: 'fix it' },
    });
  });
});

describe('answerFromError', () => {
  it('gives the model the envelope message and suggestion, the UI the whole envelope', () => {
    const envelope = timeoutError({ timeoutSeconds: 30, lastProgress: 'chunk 4' });
    const result = answerFromError(envelope);
    expect(result.forModel).toEqual({
      results: { error: 'Tool execution timed out after 30 seconds' },
      files: [],
      isError: true,
      error: {
        code: 'E_TIMEOUT',
        message: 'Tool execution timed out after 30 seconds',
        suggestion: 'Consider breaking large operations into smaller chunks or using progress reporting',
        retryable: true,
      },
    });
    expect(result.forUi.error).toBe(envelope);
  });
});
