// A call or listing that failed because a remote MCP server wants the user's own authorization
// (E_AUTH_REQUIRED, docs/oauth.md): which server, and Ferry's route that starts connecting it.
import type { ToolCallResponse } from '@ferry/contract';

export const AUTH_REQUIRED = 'E_AUTH_REQUIRED';

export interface AuthRequired {
  server: string;
  /** Ferry's start route, e.g. /api/oauth/crm/start */
  connectUrl: string;
  /** The scope the server asked for (a step-up), when it said. */
  scope?: string;
}

/**
 * Ferry's start route for a server (GET /api/oauth/:server/start), for the places that only have
 * the error's code (a chat tool card): the same URL E_AUTH_REQUIRED names in details.connectUrl.
 */
export function oauthStartPath(server: string): string {
  return `/api/oauth/${encodeURIComponent(server)}/start`;
}

/** From a settled call's answer: its error envelope's code and details. */
export function authRequiredOf(response: ToolCallResponse, server: string): AuthRequired | undefined {
  const envelope = response.forUi.error as
    | { meta_data?: { error_code?: unknown; details?: Record<string, unknown> } }
    | undefined;
  const code = envelope?.meta_data?.error_code ?? response.forModel.error?.code;
  if (code !== AUTH_REQUIRED) return undefined;
  const details = envelope?.meta_data?.details ?? {};
  const named = typeof details.server === 'string' ? details.server : server;
  if (!named) return undefined;
  return {
    server: named,
    // Only a path of Ferry's own: the link must never lead the browser elsewhere.
    connectUrl: isOwnPath(details.connectUrl) ? details.connectUrl : oauthStartPath(named),
    ...(typeof details.scope === 'string' && { scope: details.scope }),
  };
}

function isOwnPath(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/api/oauth/') && !value.startsWith('//');
}
