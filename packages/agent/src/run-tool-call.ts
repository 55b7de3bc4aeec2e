// One tool call the model asked for: name → server/tool through the name table, arguments
// checked, the host's pipeline run (it injects username and files, watches the time, stores the
// outputs), the answer turned into the text the model reads. A problem before the host is
// reached is answered to the model as an error it can act on; nothing here throws for bad input.
import type { AgentEvent, AssistantToolCall, ToolCallResponse, ToolMessage } from '@ferry/contract';
import { type AgentFiles, fillFileInputs, type RequestFiles } from './fill-file-inputs.js';
import type { ModelToolCall } from './model-client.js';
import type { AgentHost, ToolCatalog } from './model-tools.js';
import { checkToolArguments } from './tool-arguments.js';
import { loopErrorText, type ToolResultOptions, toolResultText } from './tool-result.js';

export interface ToolCallContext {
  host: AgentHost;
  catalog: ToolCatalog;
  user: { owner: string; username: string };
  sessionId?: string;
  signal: AbortSignal;
  result: ToolResultOptions;
  emit(event: AgentEvent): void;
  /** For the x-mcp-file inputs: the model's file names are resolved among the user's files. */
  files: AgentFiles;
  /** Asks the user to pick or approve the files of an x-mcp-file input (the chat's card). */
  requestFiles?: RequestFiles | undefined;
}

export interface ToolCallOutcome {
  message: ToolMessage;
  response?: ToolCallResponse;
}

/** How the call is recorded on the assistant message (server and tool resolved when known). */
export function describeCall(call: ModelToolCall, catalog: ToolCatalog): AssistantToolCall {
  const tool = catalog.byName.get(call.name);
  return {
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    ...(tool ? { server: tool.server, tool: tool.tool } : {}),
  };
}

/** A call the loop answers itself, without reaching the host. */
export function rejectCall(
  call: ModelToolCall,
  ctx: ToolCallContext,
  code: string,
  message: string,
  announce = false,
): ToolCallOutcome {
  const tool = ctx.catalog.byName.get(call.name);
  const where = tool ? { server: tool.server, tool: tool.tool } : {};
  if (announce)
    ctx.emit({ type: 'tool_call_started', toolCallId: call.id, name: call.name, ...where, arguments: null });
  const error = { code, message };
  ctx.emit({
    type: 'tool_call_finished',
    toolCallId: call.id,
    status: 'rejected',
    isError: true,
    files: [],
    error,
  });
  return {
    message: {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      ...where,
      status: 'rejected',
      isError: true,
      content: loopErrorText(code, message, ctx.result),
      files: [],
      error,
    },
  };
}

export async function runToolCall(call: ModelToolCall, ctx: ToolCallContext): Promise<ToolCallOutcome> {
  const tool = ctx.catalog.byName.get(call.name);
  const where = tool ? { server: tool.server, tool: tool.tool } : {};
  const rejected = (code: string, message: string) => rejectCall(call, ctx, code, message);

  const appOnly = tool ? undefined : ctx.catalog.appOnly.get(call.name);
  if (appOnly) {
    ctx.emit({
      type: 'tool_call_started',
      toolCallId: call.id,
      name: call.name,
      ...appOnly,
      arguments: null,
    });
    return rejected(
      'E_FORBIDDEN',
      `Tool "${call.name.slice(0, 100)}" is for its app's view only (MCP Apps visibility ["app"]): the model cannot call it.`,
    );
  }
  if (!tool) {
    ctx.emit({ type: 'tool_call_started', toolCallId: call.id, name: call.name, arguments: null });
    const known = ctx.catalog.tools
      .map((t) => t.name)
      .slice(0, 50)
      .join(', ');
    return rejected(
      'E_INVALID_INPUT',
      `Unknown tool "${call.name.slice(0, 100)}". Available tools: ${known || 'none'}`,
    );
  }
  const checked = checkToolArguments(call.arguments, tool);
  ctx.emit({
    type: 'tool_call_started',
    toolCallId: call.id,
    name: call.name,
    ...where,
    // The file names the model gave are shown as given; the tool gets the approved files instead.
    arguments: checked.ok ? { ...checked.arguments, ...checked.fileNames } : null,
  });
  if (!checked.ok) return rejected('E_INVALID_INPUT', checked.message);
  const filled = await fillFileInputs({
    tool,
    toolCallId: call.id,
    fileNames: checked.fileNames,
    owner: ctx.user.owner,
    files: ctx.files,
    requestFiles: ctx.requestFiles,
    signal: ctx.signal,
    emit: ctx.emit,
  });
  if (!filled.ok) return rejected(filled.code, filled.message);

  const response = await ctx.host.callTool(
    {
      user: ctx.user,
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
      server: tool.server,
      tool: tool.tool,
      arguments: checked.arguments,
      ...(filled.fileInputs ? { fileInputs: filled.fileInputs } : {}),
      signal: ctx.signal,
    },
    (event) => ctx.emit({ type: 'tool_call_event', toolCallId: call.id, event }),
  );
  const status = response.status;
  const error = response.forModel.error
    ? { code: response.forModel.error.code, message: response.forModel.error.message }
    : undefined;
  ctx.emit({
    type: 'tool_call_finished',
    toolCallId: call.id,
    callId: response.callId,
    status,
    isError: response.forModel.isError,
    files: response.forUi.files,
    ...(error ? { error } : {}),
    // An MCP Apps tool's view in the chat gets the result as the server sent it.
    ...(response.mcpResult ? { mcpResult: response.mcpResult } : {}),
    ...(response.mcpResultOmitted ? { mcpResultOmitted: true as const } : {}),
  });
  return {
    response,
    message: {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      ...where,
      callId: response.callId,
      status,
      isError: response.forModel.isError,
      content: toolResultText(response, ctx.result),
      files: response.forUi.files,
      ...(error ? { error } : {}),
    },
  };
}
