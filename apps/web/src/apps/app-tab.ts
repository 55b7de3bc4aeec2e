// When a call opens an MCP App (ext-apps spec: a tool whose `_meta.ui.resourceUri` names a view):
// the tab of that view, one per call.
import type { StartCallRequest, ToolDto } from '@ferry/contract';
import type { CanvasAppItem } from '../lib/canvas-layout';

export function appTabFor(
  tool: Pick<ToolDto, 'name' | 'title' | 'ui'> | undefined,
  callId: string,
  request: Pick<StartCallRequest, 'server' | 'arguments'>,
): CanvasAppItem | null {
  const resourceUri = tool?.ui?.resourceUri;
  if (!tool || !resourceUri) return null;
  return {
    kind: 'app',
    key: `app:${callId}`,
    title: tool.title ?? tool.name,
    server: request.server,
    tool: tool.name,
    resourceUri,
    arguments: request.arguments ?? {},
    callId,
  };
}
