// A call outcome → what the canvas does with it (v2 §2/§3, v2.1 §8): which files become tabs,
// which one is shown first, the layout mode, and the v2 iframe `canvas` envelope as a tab of its
// own. Pure, so the rules are unit-tested.
import type { ToolCallResponse } from '@ferry/contract';
import { type CanvasAction, type CanvasItem, fileTab, planCanvasFromOutcome } from './canvas-layout';

export function canvasActionForOutcome(response: ToolCallResponse): CanvasAction | null {
  const { files, display, canvas } = response.forUi;
  const plan = planCanvasFromOutcome(files, display);
  const items: CanvasItem[] = files.map((file) => fileTab(file, file.viewer));
  const primary = files.find((file) => file.name === plan.primaryName);
  let focus = primary?.id;
  let show = plan.show;
  if (canvas && canvas.type === 'iframe' && typeof canvas.url === 'string') {
    const key = `frame:${canvas.id}`;
    items.push({ kind: 'frame', key, url: canvas.url, title: canvas.title ?? canvas.id });
    if (canvas.open) {
      show = true;
      focus ??= key;
    }
  }
  if (!show || items.length === 0) return null;
  const mode = display.mode ?? (canvas?.open ? canvas.mode : undefined);
  return { type: 'show', items, ...(focus ? { focus } : {}), ...(mode ? { mode } : {}), open: true };
}
