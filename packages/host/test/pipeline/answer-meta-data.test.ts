// meta_data and retryable (v2.1 §1.1, §12) in the two answers: the UI gets meta_data whole and the
// effective retryable flag; the model gets meta_data redacted and only up to
// MODEL_META_DATA_MAX_BYTES of JSON (else a note naming the cap), and `retryable` in its error.
import {
  MODEL_META_DATA_MAX_BYTES,
  normalizeToolResult,
  type ToolOutcome,
  timeoutError,
} from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { answer, answerFromError } from '../../src/pipeline/answer.js';
import type { Redaction } from '../../src/pipeline/redact-for-model.js';

const redaction: Redaction = { references: new Map(), workspaceDirs: ['/srv/ferry/ws/alice', '/tmp/alice'] };

function outcomeOf(value: unknown, isError = false): ToolOutcome {
  const result = normalizeToolResult({
    content: [{ type: 'text', text: JSON.stringify(value) }],
    ...(isError ? { isError: true } : {}),
  });
  if (!result.ok) throw new Error(result.error);
  return result.outcome;
}

const answerOf = (outcome: ToolOutcome) =>
  answer({ outcome, stored: [], rejected: [], unstored: [], warnings: [], redaction });

/** `{"k":"xxx…"}` of exactly `bytes` bytes of JSON. */
function metaOfSize(bytes: number): Record<string, unknown> {
  const meta = { k: 'x'.repeat(bytes - '{"k":""}'.length) };
  expect(Buffer.byteLength(JSON.stringify(meta))).toBe(bytes);
  return meta;
}

describe('meta_data', () => {
  it('reaches the UI whole and the model redacted', () => {
    const meta = { source: '/tmp/alice/input_files/sales.csv', rows: 3, nested: { ms: 12 } };
    const { forModel, forUi } = answerOf(outcomeOf({ results: { ok: true }, meta_data: meta }));
    expect(forUi.metaData).toEqual(meta);
    expect(forModel.metaData).toEqual({ source: 'input_files/sales.csv', rows: 3, nested: { ms: 12 } });
    expect(forModel.metaDataNote).toBeUndefined();
  });

  it('is the model’s up to the cap; one byte over, the model reads a note naming the sizes', () => {
    expect(MODEL_META_DATA_MAX_BYTES).toBe(2048);
    const atCap = metaOfSize(MODEL_META_DATA_MAX_BYTES);
    expect(answerOf(outcomeOf({ results: 1, meta_data: atCap })).forModel.metaData).toEqual(atCap);

    const over = metaOfSize(MODEL_META_DATA_MAX_BYTES + 1);
    const { forModel, forUi } = answerOf(outcomeOf({ results: 1, meta_data: over }));
    expect(forModel.metaData).toBeUndefined();
    expect(forModel.metaDataNote).toBe(
      'meta_data omitted by Ferry: its JSON is 2049 bytes, over the 2048-byte cap for the model (the user sees it in full)',
    );
    expect(forUi.metaData).toEqual(over);
  });

  it('is absent from both answers when the tool gave none', () => {
    const { forModel, forUi } = answerOf(outcomeOf({ results: { ok: true } }));
    expect('metaData' in forModel).toBe(false);
    expect('metaData' in forUi).toBe(false);
    expect('retryable' in forUi).toBe(false);
  });
});

describe('retryable', () => {
  it("a tool's error envelope: in the model's error and the UI answer", () => {
    const envelope = (retryable: boolean) => ({
      results: { error: 'Upstream busy' },
      meta_data: {
        is_error: true,
        reason: 'TransientFailure',
        error_code: 'E_UPSTREAM_BUSY',
        details: {},
        retryable,
      },
    });
    for (const retryable of [true, false]) {
      const { forModel, forUi } = answerOf(outcomeOf(envelope(retryable), true));
      expect(forModel.error).toEqual({ code: 'E_UPSTREAM_BUSY', message: 'Upstream busy', retryable });
      expect(forUi.retryable).toBe(retryable);
      expect(forUi.metaData).toMatchObject({ is_error: true, retryable });
    }
  });

  it('a top-level retryable on a success reaches the UI; an error without one is not retryable', () => {
    const ok = answerOf(outcomeOf({ results: { ok: true }, retryable: true }));
    expect(ok.forUi.retryable).toBe(true);
    expect(ok.forModel.error).toBeUndefined();

    const plain = answer({
      outcome: (() => {
        const result = normalizeToolResult({ isError: true, content: [{ type: 'text', text: 'boom' }] });
        if (!result.ok) throw new Error(result.error);
        return result.outcome;
      })(),
      stored: [],
      rejected: [],
      unstored: [],
      warnings: [],
    });
    expect(plain.forModel.error).toEqual({ code: 'E_TOOL_ERROR', message: 'boom', retryable: false });
    expect(plain.forUi.retryable).toBe(false);
  });

  it("a host failure: the envelope's flag (a timeout is retryable, v2.1 §12.1)", () => {
    const { forModel, forUi } = answerFromError(timeoutError({ timeoutSeconds: 30 }));
    expect(forModel.error?.retryable).toBe(true);
    expect(forUi.retryable).toBe(true);
  });
});
