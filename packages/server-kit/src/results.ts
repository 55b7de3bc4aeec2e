// Building tool results. A v2.1 result goes out twice: as `structuredContent` (what v2.1-aware hosts
// read first) and as one JSON text block (what older hosts and models read), so one tool serves
// both without knowing which host calls it.
import {
  type Artifact,
  type DeferredArtifact,
  type Display,
  describeIssues,
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  ToolOutputV21Schema,
} from '@ferry/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';

export interface V21ResultInput {
  /** The primary, concise result for the model and the user (spec §1.1: required). */
  results: unknown;
  artifacts?: Artifact[];
  /** Becomes `deferred_artifacts`. */
  deferred?: DeferredArtifact[];
  display?: Display;
  /** Becomes `meta_data`: small structured facts (metrics, parameters, provenance). */
  metaData?: Record<string, unknown>;
  retryable?: boolean;
}

export interface JsonResultOptions {
  /** Marks the MCP result as an error (`isError: true`). */
  isError?: boolean;
}

/**
 * Any JSON object as a CallToolResult: `structuredContent` plus the same object as a JSON text
 * block. For shapes v21Result does not build (legacy arrays, returned_file_*); no validation.
 */
export function jsonResult(value: Record<string, unknown>, options: JsonResultOptions = {}): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
  };
  if (options.isError) result.isError = true;
  return result;
}

function buildV21Output(input: V21ResultInput): Record<string, unknown> {
  const output: Record<string, unknown> = { results: input.results };
  if (input.metaData !== undefined) output.meta_data = input.metaData;
  if (input.retryable !== undefined) output.retryable = input.retryable;
  if (input.artifacts !== undefined) output.artifacts = input.artifacts;
  if (input.deferred !== undefined) output.deferred_artifacts = input.deferred;
  if (input.display !== undefined) output.display = input.display;
  if (process.env.NODE_ENV !== 'production') checkOutput(output, input);
  return output;
}

/**
 * A v2.1 tool output (spec §1.1) as a CallToolResult. Outside production (`NODE_ENV` is not
 * `production`) the output is checked against the contract's ToolOutputV21Schema and a
 * `display.primary_file` must name one of the artifacts: a mistake then fails the author's own
 * test run instead of confusing a host later. Throws TypeError on such a mistake.
 */
export function v21Result(input: V21ResultInput): CallToolResult {
  const output = buildV21Output(input);
  return jsonResult(output, { isError: isErrorMeta(input.metaData) });
}

/** The v2.1 §12 error envelope as an MCP error result (`isError: true`). */
export function v21Error(envelope: ErrorEnvelope): CallToolResult {
  return jsonResult({ ...envelope }, { isError: true });
}

/**
 * Any thrown value as an error result: a FerryError keeps its code and details; anything else
 * becomes E_TOOL_ERROR with the error's message, so the model sees what went wrong.
 */
export function errorResult(error: unknown): CallToolResult {
  if (error instanceof FerryError) return v21Error(error.toEnvelope());
  const message = error instanceof Error ? error.message : String(error);
  return v21Error(errorEnvelope('E_TOOL_ERROR', {}, message));
}

/**
 * Wraps a tool handler so that a throw becomes {@link errorResult} instead of the SDK's bare
 * text error, keeping the v2.1 envelope (code, reason, retryable) for the host.
 */
export function withErrorEnvelope<Args extends unknown[]>(
  handler: (...args: Args) => CallToolResult | Promise<CallToolResult>,
): (...args: Args) => Promise<CallToolResult> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      return errorResult(error);
    }
  };
}

function isErrorMeta(metaData: Record<string, unknown> | undefined): boolean {
  return metaData?.is_error === true;
}

function checkOutput(output: Record<string, unknown>, input: V21ResultInput): void {
  const parsed = ToolOutputV21Schema.safeParse(output);
  if (!parsed.success) throw new TypeError(`v21Result: invalid v2.1 output: ${describeIssues(parsed.error)}`);
  const primary = input.display?.primary_file;
  if (primary !== undefined && !(input.artifacts ?? []).some((artifact) => artifact.name === primary)) {
    throw new TypeError(`v21Result: display.primary_file ${JSON.stringify(primary)} names no artifact`);
  }
}
