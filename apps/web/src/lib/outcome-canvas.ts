// A call outcome → what the canvas does with it (v2 §2/§3, v2.1 §8): which files become tabs,
// which one is shown first, the layout mode, and the v2 iframe `canvas` envelope as a tab of its
// own: framed only when the host marked it allowed (else the tab says why), its token kept for the
// frame (lib/canvas-frame.ts). Pure, so the rules are unit-tested.
import type { ToolCallResponse, UiCanvas } from '@ferry/contract';
import {
  type CanvasAction,
  type CanvasFrameItem,
  type CanvasItem,
  fileTab,
  planCanvasFromOutcome,
} from './canvas-layout';

export function canvasActionForOutcome(response: ToolCallResponse): CanvasAction | null {
  const { files, display, canvas } = response.forUi;
  const plan = planCanvasFromOutcome(files, display);
  const items: CanvasItem[] = files.map((file) => fileTab(file, file.viewer));
  const primary = files.find((file) => file.name === plan.primaryName);
  let focus = primary?.id;
  let show = plan.show;
  if (canvas && canvas.type === 'iframe' && typeof canvas.url === 'string') {
    const key = `frame:${canvas.id}`;
    items.push(frameTab(canvas, response.callId));
    if (canvas.open) {
      show = true;
      focus ??= key;
    }
  }
  if (!show || items.length === 0) return null;
  const mode = display.mode ?? (canvas?.open ? canvas.mode : undefined);
  return { type: 'show', items, ...(focus ? { focus } : {}), ...(mode ? { mode } : {}), open: true };
}

/** The tab of a canvas envelope; anything the host did not mark allowed carries its refusal. */
function frameTab(canvas: UiCanvas, callId: string): CanvasFrameItem {
  const tab: CanvasFrameItem = {
    kind: 'frame',
    key: `frame:${canvas.id}`,
    url: canvas.url,
    title: canvas.title ?? canvas.id,
    server: canvas.server,
    canvasId: canvas.id,
    callId,
  };
  if (canvas.allowed !== true) {
    tab.refusal = canvas.refusal ?? 'Ferry did not allow its origin';
  } else if (canvas.token) {
    tab.token = canvas.token;
    if (canvas.tokenExpiresAt) tab.tokenExpiresAt = canvas.tokenExpiresAt;
  }
  return tab;
}
