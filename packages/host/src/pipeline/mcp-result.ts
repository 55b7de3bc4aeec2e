// MCP Apps (SEP-1865): a tool's view gets the CallToolResult exactly as the server sent it
// (`ui/notifications/tool-result`, and the answer to its own `tools/call`), not Ferry's
// normalized answer. The response carries it for the tools of a server with views, and only up
// to MCP_RESULT_MAX_BYTES of JSON: a larger result (base64 files inside it, say) is left out and
// said so; the files are in My Files anyway.
import { MCP_RESULT_MAX_BYTES, readToolUi } from '@ferry/contract';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

export type McpResultFields = { mcpResult?: Record<string, unknown>; mcpResultOmitted?: true };

/**
 * The tool declares MCP Apps metadata, or its server has a view: a view may call any tool of its
 * own server whose visibility includes "app" (the default), and gets that tool's raw result.
 */
export function keepsMcpResult(
  tool: Pick<Tool, '_meta'>,
  serverTools: readonly Pick<Tool, '_meta'>[],
): boolean {
  return readToolUi(tool._meta) !== undefined || hasView(serverTools);
}

// By tool list: a connection hands out the same list until the server's tools change, so the
// scan of every tool runs once per list, not on every call.
const viewsOfLists = new WeakMap<readonly Pick<Tool, '_meta'>[], boolean>();
function hasView(serverTools: readonly Pick<Tool, '_meta'>[]): boolean {
  let found = viewsOfLists.get(serverTools);
  if (found === undefined) {
    found = serverTools.some((other) => readToolUi(other._meta)?.resourceUri !== undefined);
    viewsOfLists.set(serverTools, found);
  }
  return found;
}

export function mcpResultFields(
  keep: boolean,
  result: CallToolResult,
  maxBytes: number = MCP_RESULT_MAX_BYTES,
): McpResultFields {
  if (!keep) return {};
  // A cheap walk first, so a huge result is never serialized just to be measured.
  if (jsonBytesAtLeast(result, maxBytes + 1)) return { mcpResultOmitted: true };
  if (Buffer.byteLength(JSON.stringify(result)) > maxBytes) return { mcpResultOmitted: true };
  return { mcpResult: { ...result } };
}

/**
 * Whether `value`'s JSON is at least `limit` bytes, by a lower bound: each string's UTF-8 bytes
 * and quotes, brackets, colons and commas, one byte per number, boolean or null (escapes and
 * longer numbers are not counted; the exact check after it settles those). Stops as soon as the
 * bound reaches the limit.
 */
function jsonBytesAtLeast(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += Buffer.byteLength(item) + 2;
    else if (Array.isArray(item)) {
      total += 2 + Math.max(0, item.length - 1);
      for (const child of item) stack.push(child);
    } else if (typeof item === 'object' && item !== null) {
      // JSON leaves out undefined members.
      const members = Object.entries(item).filter(([, child]) => child !== undefined);
      total += 2 + Math.max(0, members.length - 1);
      for (const [key, child] of members) {
        total += Buffer.byteLength(key) + 3;
        stack.push(child);
      }
    } else if (item !== undefined && typeof item !== 'function') total += 1;
    if (total >= limit) return true;
  }
  return false;
}
