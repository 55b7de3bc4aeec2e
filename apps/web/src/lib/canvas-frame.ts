// How a canvas tab's frame is opened and handed its token (docs/canvas.md). The host decided
// whether the origin is allowed and the API checks again before the frame opens; the checks here
// are the browser's own line of defense. Pure, so the rules are unit-tested.
import type { CanvasFrameItem } from './canvas-layout';

/**
 * The frame runs scripts and forms in its own origin, which is never Ferry's (see planFrame):
 * keeping its origin is what lets the token reach it by postMessage with an exact targetOrigin
 * (a sandbox without allow-same-origin makes the origin opaque and only "*" would be delivered).
 * No popups, modals, downloads or top-level navigation.
 */
export const FRAME_SANDBOX = 'allow-scripts allow-forms allow-same-origin';

/** What the page posts to the frame (docs/canvas.md, "Token hand-over"). */
export const CANVAS_TOKEN_MESSAGE = 'ferry:canvas-token';
/** What a frame may post to the page to be sent the token again (e.g. a script that loaded late). */
const CANVAS_TOKEN_REQUEST = 'ferry:canvas-token-request';

export interface CanvasTokenMessage {
  type: typeof CANVAS_TOKEN_MESSAGE;
  version: 1;
  canvasId: string;
  token: string;
  /** ISO 8601, when the tool said when the token expires. */
  expiresAt?: string;
}

export type FramePlan = { ok: true; src: string; origin: string } | { ok: false; reason: string };

/** Whether the tab may be framed at all; `appOrigin`: the page's own origin. */
export function planFrame(item: CanvasFrameItem, appOrigin: string): FramePlan {
  if (item.refusal) return { ok: false, reason: item.refusal };
  if (!item.server) return { ok: false, reason: 'it names no server, so its origin cannot be checked' };
  let url: URL;
  try {
    url = new URL(item.url);
  } catch {
    return { ok: false, reason: `${item.url} is not an address Ferry can open` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `${url.protocol} addresses are never framed` };
  }
  // Scripts of Ferry's own origin in a frame that keeps its origin could lift their own sandbox.
  if (url.origin === appOrigin) return { ok: false, reason: `origin ${url.origin} is Ferry's own` };
  return { ok: true, src: url.href, origin: url.origin };
}

/** Whether the tab's token has expired at `now` (epoch ms); false when it has no expiry. */
export function tokenExpired(item: CanvasFrameItem, now: number): boolean {
  if (!item.tokenExpiresAt) return false;
  const expires = Date.parse(item.tokenExpiresAt);
  return !Number.isFinite(expires) || expires <= now;
}

/** The message that hands the frame its token, or null: no token, or it has expired. */
export function tokenMessage(item: CanvasFrameItem, now: number): CanvasTokenMessage | null {
  if (!item.token || tokenExpired(item, now)) return null;
  return {
    type: CANVAS_TOKEN_MESSAGE,
    version: 1,
    canvasId: item.canvasId ?? item.key,
    token: item.token,
    ...(item.tokenExpiresAt ? { expiresAt: item.tokenExpiresAt } : {}),
  };
}

export function isTokenRequest(data: unknown): boolean {
  return (
    typeof data === 'object' && data !== null && (data as { type?: unknown }).type === CANVAS_TOKEN_REQUEST
  );
}
