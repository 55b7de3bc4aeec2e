// The canvas frame's rules in the browser: what is framed, what the frame is posted, what a tab
// keeps across a reload (never the token).
import type { UiCanvas } from '@ferry/contract';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { describe, expect, it } from 'vitest';
import {
  CANVAS_TOKEN_MESSAGE,
  FRAME_SANDBOX,
  isTokenRequest,
  planFrame,
  tokenExpired,
  tokenMessage,
} from '../src/lib/canvas-frame';
import type { CanvasFrameItem } from '../src/lib/canvas-layout';
import { parseStoredCanvas, serializeCanvas } from '../src/lib/canvas-storage';
import { canvasActionForOutcome } from '../src/lib/outcome-canvas';

const APP = 'http://127.0.0.1:4000';
const NOW = Date.parse('2030-01-01T12:00:00Z');

const item = (extra: Partial<CanvasFrameItem> = {}): CanvasFrameItem => ({
  kind: 'frame',
  key: 'frame:dash',
  url: 'https://dash.example.com/view?s=1',
  title: 'Dash',
  server: 'dash',
  canvasId: 'dash',
  callId: 'c',
  ...extra,
});

function frameOf(canvas: UiCanvas): CanvasFrameItem {
  const response = toolCallResponse('c', 'finished', { forUi: { canvas } });
  const action = canvasActionForOutcome(response);
  if (action?.type !== 'show' || action.items[0]?.kind !== 'frame') throw new Error('expected a frame tab');
  return action.items[0];
}

const canvas = (extra: Partial<UiCanvas>): UiCanvas => ({
  id: 'dash',
  url: 'https://dash.example.com/view',
  type: 'iframe',
  open: true,
  persistence: 'session',
  server: 'dash',
  origin: 'https://dash.example.com',
  allowed: true,
  ...extra,
});

describe('the tab of a canvas envelope', () => {
  it('keeps the token of an allowed canvas, for the frame', () => {
    expect(frameOf(canvas({ token: 'cap-123456789', tokenExpiresAt: '2030-01-01T12:05:00.000Z' }))).toEqual({
      kind: 'frame',
      key: 'frame:dash',
      url: 'https://dash.example.com/view',
      title: 'dash',
      server: 'dash',
      canvasId: 'dash',
      callId: 'c',
      token: 'cap-123456789',
      tokenExpiresAt: '2030-01-01T12:05:00.000Z',
    });
  });

  it('carries the refusal of a canvas the host did not allow, and no token even if one came', () => {
    const refused = frameOf(
      canvas({
        allowed: false,
        refusal: 'origin https://x.example is not allowed for server dash',
        token: 'cap-123456789',
      }),
    );
    expect(refused.refusal).toBe('origin https://x.example is not allowed for server dash');
    expect(refused).not.toHaveProperty('token');
    // An answer that does not say `allowed` (an older API, a tampered one) is refused too.
    const { allowed: _allowed, ...unsaid } = canvas({});
    expect(frameOf(unsaid as UiCanvas).refusal).toBe('Ferry did not allow its origin');
  });
});

describe('planFrame', () => {
  it('frames an allowed http(s) URL of another origin', () => {
    expect(planFrame(item(), APP)).toEqual({
      ok: true,
      src: 'https://dash.example.com/view?s=1',
      origin: 'https://dash.example.com',
    });
  });

  it("refuses a refused tab, a tab without a server, other schemes and Ferry's own origin", () => {
    expect(planFrame(item({ refusal: 'origin x is not allowed for server dash' }), APP)).toEqual({
      ok: false,
      reason: 'origin x is not allowed for server dash',
    });
    const { server: _server, ...serverless } = item();
    expect(planFrame(serverless, APP)).toMatchObject({ ok: false });
    expect(planFrame(item({ url: 'javascript:alert(1)' }), APP)).toEqual({
      ok: false,
      reason: 'javascript: addresses are never framed',
    });
    expect(planFrame(item({ url: `${APP}/api/openapi.json` }), APP)).toEqual({
      ok: false,
      reason: `origin ${APP} is Ferry's own`,
    });
    expect(planFrame(item({ url: 'not a url' }), APP)).toMatchObject({ ok: false });
  });
});

describe('the token hand-over', () => {
  it('posts the token, the canvas id and the expiry, while the token is valid', () => {
    const valid = item({ token: 'cap-123456789', tokenExpiresAt: '2030-01-01T12:05:00.000Z' });
    expect(tokenMessage(valid, NOW)).toEqual({
      type: CANVAS_TOKEN_MESSAGE,
      version: 1,
      canvasId: 'dash',
      token: 'cap-123456789',
      expiresAt: '2030-01-01T12:05:00.000Z',
    });
    expect(tokenMessage(item({ token: 'cap-123456789' }), NOW)).not.toHaveProperty('expiresAt');
    expect(tokenExpired(valid, NOW + 5 * 60_000)).toBe(true);
    expect(tokenMessage(valid, NOW + 5 * 60_000)).toBeNull();
    expect(tokenMessage(item(), NOW)).toBeNull();
  });

  it('knows the request message and nothing else', () => {
    expect(isTokenRequest({ type: 'ferry:canvas-token-request' })).toBe(true);
    for (const data of [null, 'ferry:canvas-token-request', { type: CANVAS_TOKEN_MESSAGE }, {}]) {
      expect(isTokenRequest(data)).toBe(false);
    }
  });

  it('sandboxes the frame without popups, modals or top navigation', () => {
    expect(FRAME_SANDBOX.split(' ').sort()).toEqual(['allow-forms', 'allow-same-origin', 'allow-scripts']);
  });
});

describe('canvas storage', () => {
  it('never writes a token, and reads back what the frame needs to be checked again', () => {
    const tab = item({ token: 'cap-123456789', tokenExpiresAt: '2030-01-01T12:05:00.000Z' });
    const text = serializeCanvas({ open: true, items: [tab], active: tab.key, secondary: null });
    expect(text).not.toContain('cap-123456789');
    expect(text).not.toContain('tokenExpiresAt');
    const { token: _t, tokenExpiresAt: _e, ...kept } = tab;
    expect(parseStoredCanvas(text)?.items).toEqual([kept]);
  });
});
