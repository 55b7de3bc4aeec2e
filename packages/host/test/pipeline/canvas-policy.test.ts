// The v2 canvas envelope as the UI gets it: framed only from an allowed origin, the token passed on
// only with an allowed canvas and while it has not expired, never to the model.
import { normalizeToolResult, type ToolOutcome } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { answer } from '../../src/pipeline/answer.js';
import { canvasForUi, checkCanvasUrl } from '../../src/pipeline/canvas-policy.js';

const TOKEN = 'cap-7f3a9c2e4b1d';
const NOW = Date.parse('2030-01-01T12:00:00Z');
const policy = { server: 'dash', origins: ['https://dash.example.com'] };

function outcomeOf(value: unknown): ToolOutcome {
  const result = normalizeToolResult({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  if (!result.ok) throw new Error(result.error);
  return result.outcome;
}

function envelopeOf(canvas: Record<string, unknown>) {
  const envelope = outcomeOf({ results: 'ok', canvas }).canvas;
  if (!envelope) throw new Error('the canvas was dropped');
  return envelope;
}

const answerOf = (outcome: ToolOutcome, origins = policy.origins) =>
  answer({
    outcome,
    stored: [],
    rejected: [],
    unstored: [],
    warnings: ['earlier'],
    canvas: { server: 'dash', origins },
    now: NOW,
  });

describe('checkCanvasUrl', () => {
  it('allows exactly the listed origins and names origin and server otherwise', () => {
    expect(checkCanvasUrl('https://dash.example.com/view?s=1', policy)).toEqual({
      allowed: true,
      origin: 'https://dash.example.com',
    });
    for (const url of [
      'https://dash.example.com:8443/view',
      'http://dash.example.com/view',
      'https://evil.example.com/view',
    ]) {
      const origin = new URL(url).origin;
      expect(checkCanvasUrl(url, policy)).toEqual({
        allowed: false,
        origin,
        reason: `origin ${origin} is not allowed for server dash`,
      });
    }
    expect(checkCanvasUrl('javascript:alert(1)', policy)).toMatchObject({ allowed: false });
    expect(checkCanvasUrl('https://dash.example.com/', { server: 'local', origins: [] })).toEqual({
      allowed: false,
      origin: 'https://dash.example.com',
      reason: 'origin https://dash.example.com is not allowed for server local',
    });
  });
});

describe('canvasForUi', () => {
  it('passes an allowed canvas on with its token, and only the envelope fields', () => {
    const { canvas, warnings } = canvasForUi(
      envelopeOf({
        id: 'm',
        url: 'https://dash.example.com/view',
        token: TOKEN,
        title: 'Metrics',
        mode: 'split',
        allowed: false,
        refusal: 'smuggled',
        extra: 1,
      }),
      policy,
      NOW,
    );
    expect(canvas).toEqual({
      id: 'm',
      url: 'https://dash.example.com/view',
      type: 'iframe',
      open: true,
      persistence: 'session',
      title: 'Metrics',
      mode: 'split',
      token: TOKEN,
      server: 'dash',
      origin: 'https://dash.example.com',
      allowed: true,
    });
    expect(warnings).toEqual([]);
  });

  it('refuses another origin: the reason, no token, a warning; a smuggled `allowed` changes nothing', () => {
    const { canvas, warnings } = canvasForUi(
      envelopeOf({ id: 'm', url: 'https://evil.example.com/view', token: TOKEN, allowed: true }),
      policy,
      NOW,
    );
    expect(canvas).toMatchObject({
      allowed: false,
      origin: 'https://evil.example.com',
      refusal: 'origin https://evil.example.com is not allowed for server dash',
    });
    expect(canvas).not.toHaveProperty('token');
    expect(warnings).toEqual([
      'canvas m not opened: origin https://evil.example.com is not allowed for server dash',
    ]);
  });

  it("respects the envelope's token_expires_at: passed on while valid, dropped once expired or unreadable", () => {
    const at = (token_expires_at: unknown) =>
      canvasForUi(
        envelopeOf({ id: 'm', url: 'https://dash.example.com/', token: TOKEN, token_expires_at }),
        policy,
        NOW,
      );
    const valid = at('2030-01-01T13:05:00+01:00');
    expect(valid.canvas).toMatchObject({ token: TOKEN, tokenExpiresAt: '2030-01-01T12:05:00.000Z' });
    expect(at(NOW / 1000 + 60).canvas).toMatchObject({
      token: TOKEN,
      tokenExpiresAt: '2030-01-01T12:01:00.000Z',
    });

    const expired = at('2030-01-01T11:59:59Z');
    expect(expired.canvas).not.toHaveProperty('token');
    expect(expired.warnings).toEqual([
      'canvas m: its token expired at 2030-01-01T11:59:59.000Z; not passed on',
    ]);
    for (const unreadable of ['tomorrow', '12', true]) {
      const result = at(unreadable);
      expect(result.canvas).not.toHaveProperty('token');
      expect(result.warnings).toEqual([
        'canvas m: token_expires_at is not a date; the token is not passed on',
      ]);
    }
  });
});

describe('answer', () => {
  it('never shows the model the token, even when the tool echoes it', () => {
    const outcome = outcomeOf({
      results: { status: 'opened', note: `token ${TOKEN}` },
      meta_data: { token: TOKEN },
      canvas: { id: 'm', url: 'https://dash.example.com/view', token: TOKEN },
    });
    const result = answerOf(outcome);
    expect(JSON.stringify(result.forModel)).not.toContain(TOKEN);
    expect(result.forModel.results).toEqual({ status: 'opened', note: 'token [canvas token]' });
    expect(result.forUi.canvas).toMatchObject({ allowed: true, token: TOKEN });
    expect(result.forUi.warnings).toEqual(['earlier']);
  });

  it('refuses every canvas when it is not told whose it is', () => {
    const outcome = outcomeOf({
      results: 'x',
      canvas: { id: 'm', url: 'https://dash.example.com/', token: TOKEN },
    });
    const result = answer({ outcome, stored: [], rejected: [], unstored: [], warnings: [] });
    expect(result.forUi.canvas).toMatchObject({ allowed: false, server: '(unnamed)' });
    expect(result.forUi.canvas).not.toHaveProperty('token');
  });

  it('adds the refusal to the warnings of a call whose canvas is refused', () => {
    const outcome = outcomeOf({ results: 'x', canvas: { id: 'm', url: 'https://evil.example.com/' } });
    expect(answerOf(outcome).forUi.warnings).toEqual([
      'earlier',
      'canvas m not opened: origin https://evil.example.com is not allowed for server dash',
    ]);
  });
});
