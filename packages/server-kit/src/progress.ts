// Progress for the current request (v2.1 §11.2): each notification resets the host's 30 s
// watchdog, so a long tool stays alive as long as it reports. MCP only allows progress for a
// request whose client asked for it with `_meta.progressToken`; without a token this is a no-op.
import type { ServerContext } from '@modelcontextprotocol/server';

/** The part of the SDK's handler context that progress needs (the second argument of a tool handler). */
export type ProgressContext = {
  mcpReq: Pick<ServerContext['mcpReq'], '_meta' | 'notify'>;
};

/**
 * Sends `notifications/progress` for the request being handled. `progress` should grow with each
 * call (MCP requires it to increase); `total` and `message` are optional. Resolves true when a
 * notification was sent, false when the client gave no progress token.
 */
export async function reportProgress(
  ctx: ProgressContext,
  progress: number,
  total?: number,
  message?: string,
): Promise<boolean> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return false;
  const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
    progressToken,
    progress,
  };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  await ctx.mcpReq.notify({ method: 'notifications/progress', params });
  return true;
}
