// The v2 `canvas` envelope (§3: "sandbox iframes, allowlist origins, use short-lived capability
// tokens") as the UI gets it. The host decides here whether the URL may be framed: only when its
// origin is one the server allows (servers/canvas-origins.ts); the web app frames nothing else and
// the API checks again when the frame opens (apps/ferry/src/routes/canvas-opens.ts). The token goes
// to the UI only with an allowed canvas and only while it has not expired; the model never gets it
// (answer.ts redacts it from what the model reads). See docs/canvas.md.
import type { ToolOutcome, UiCanvas } from '@ferry/contract';
import type { Redaction } from './redact-for-model.js';

export type CanvasEnvelope = NonNullable<ToolOutcome['canvas']>;

/** Whose canvas it is and the origins that server's canvases may be framed from. */
export interface CanvasPolicy {
  server: string;
  origins: readonly string[];
}

/** Tokens shorter than this are not redacted from the model's answer (it would mangle ordinary text). */
const MIN_REDACTED_TOKEN_LENGTH = 8;

export type CanvasUrlCheck =
  | { allowed: true; origin: string }
  | { allowed: false; origin: string; reason: string };

/** Whether `url` may be framed for `policy.server`; the reason names the origin and the server. */
export function checkCanvasUrl(url: string, policy: CanvasPolicy): CanvasUrlCheck {
  let origin: string;
  try {
    const parsed = new URL(url);
    // The normalizer only lets http(s) through; anything else is refused here too.
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return { allowed: false, origin: parsed.protocol, reason: `${parsed.protocol} URLs are never framed` };
    }
    origin = parsed.origin;
  } catch {
    return { allowed: false, origin: '', reason: 'the canvas URL cannot be read' };
  }
  if (policy.origins.includes(origin)) return { allowed: true, origin };
  return { allowed: false, origin, reason: `origin ${origin} is not allowed for server ${policy.server}` };
}

/**
 * The canvas for the UI answer, and warnings for the call. `now`: epoch milliseconds, to compare
 * with the envelope's `token_expires_at` (a tool's own claim: Ferry never makes or extends a token).
 */
export function canvasForUi(
  envelope: CanvasEnvelope,
  policy: CanvasPolicy,
  now: number,
): { canvas: UiCanvas; warnings: string[] } {
  const warnings: string[] = [];
  const check = checkCanvasUrl(envelope.url, policy);
  const canvas: UiCanvas = {
    id: envelope.id,
    url: envelope.url,
    type: envelope.type,
    open: envelope.open,
    persistence: envelope.persistence,
    server: policy.server,
    origin: check.origin,
    allowed: check.allowed,
  };
  if (envelope.title !== undefined) canvas.title = envelope.title;
  if (envelope.mode !== undefined) canvas.mode = envelope.mode;
  if (!check.allowed) {
    canvas.refusal = check.reason;
    warnings.push(`canvas ${envelope.id} not opened: ${check.reason}`);
    return { canvas, warnings };
  }
  if (envelope.token === undefined || envelope.token === '') return { canvas, warnings };
  const expiry = tokenExpiry(envelope);
  if (expiry === 'unreadable') {
    warnings.push(`canvas ${envelope.id}: token_expires_at is not a date; the token is not passed on`);
  } else if (expiry !== undefined && expiry.getTime() <= now) {
    warnings.push(`canvas ${envelope.id}: its token expired at ${expiry.toISOString()}; not passed on`);
  } else {
    canvas.token = envelope.token;
    if (expiry !== undefined) canvas.tokenExpiresAt = expiry.toISOString();
  }
  return { canvas, warnings };
}

/** A policy that frames nothing (a caller that did not say whose canvas it is). */
export const NO_CANVAS_ORIGINS: CanvasPolicy = { server: '(unnamed)', origins: [] };

/**
 * The redaction for the model's answer plus the envelope's token: a tool that echoes its token in
 * `results` or `meta_data` shows the model `[canvas token]` instead.
 */
export function withCanvasToken(redaction: Redaction, envelope: CanvasEnvelope | undefined): Redaction {
  const token = envelope?.token;
  if (token === undefined || token.length < MIN_REDACTED_TOKEN_LENGTH) return redaction;
  return { ...redaction, references: new Map([...redaction.references, [token, '[canvas token]']]) };
}

// RFC 3339 with a zone: Date.parse alone also reads "12" or "Tuesday" as some date.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** `token_expires_at` (RFC 3339, or epoch seconds), undefined when the envelope has none. */
function tokenExpiry(envelope: CanvasEnvelope): Date | 'unreadable' | undefined {
  const raw = (envelope as Record<string, unknown>).token_expires_at;
  if (raw === undefined || raw === null) return undefined;
  let date = new Date(Number.NaN);
  if (typeof raw === 'number' && Number.isFinite(raw)) date = new Date(raw * 1000);
  else if (typeof raw === 'string' && RFC_3339.test(raw)) date = new Date(raw);
  return Number.isNaN(date.getTime()) ? 'unreadable' : date;
}
