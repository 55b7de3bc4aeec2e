// normalizeToolResult: any MCP CallToolResult → one ToolOutcome.
//
// Steps: find the JSON payload (structuredContent, else the first JSON object in a text block,
// else the legacy `toolResult`) → collect files from every convention (v2.1/v2 artifacts, deferred
// artifacts, legacy arrays, returned_file_*, MCP image/audio/resource/resource_link) → results
// for the model → display hints and canvas → error envelope → form. See docs/contract.md.

import { ERROR_CODES } from '../wire/errors.js';
import { type CollectOptions, FileCollector } from './collect-files.js';
import { readDisplay } from './read-display.js';
import { readMcpContent } from './read-mcp-content.js';
import { exceedsDepth, MAX_RESULT_DEPTH, tooDeepReason } from './result-limits.js';
import {
  ArtifactSchema,
  CanvasEnvelopeSchema,
  DEFAULT_DEFERRED_EXPIRES_HOURS,
  DeferredArtifactSchema,
  describeIssues,
} from './schemas.js';
import type { NormalizeResult, OutcomeError, OutcomeForm, ToolOutcome } from './tool-outcome.js';

export type NormalizeOptions = CollectOptions & {
  /** Default lifetime of deferred files. @default 72 */
  deferredExpiresHours?: number;
};

/** Keys that carry files or hints; what remains of a payload without `results` is the result. */
const CONTRACT_KEYS = [
  'artifacts',
  'deferred_artifacts',
  'display',
  'canvas',
  'meta_data',
  'retryable',
  'returned_file_names',
  'returned_file_contents',
  'returned_file_name',
  'returned_file_base64',
] as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function normalizeToolResult(
  callToolResult: unknown,
  options: NormalizeOptions = {},
): NormalizeResult {
  if (!isObject(callToolResult)) {
    return { ok: false, error: `tool result must be an object, got ${describeType(callToolResult)}` };
  }
  // Every later reader (the redaction for the model, JSON for the API) walks the result
  // recursively: a result nested deeper than the limit is refused whole, here, once.
  if (exceedsDepth(callToolResult, MAX_RESULT_DEPTH)) return { ok: false, error: tooDeepReason() };
  const warnings: string[] = [];
  const collector = new FileCollector(options, warnings);
  const content = readMcpContent(callToolResult, warnings);
  if (content.jsonTexts.some((payload) => exceedsDepth(payload, MAX_RESULT_DEPTH))) {
    return { ok: false, error: tooDeepReason() };
  }
  const payload = pickPayload(callToolResult, content.jsonTexts, warnings);
  const text = content.texts;

  // The payload's files first: they carry the tool's own names and hints.
  if (payload) collectPayloadFiles(payload, collector, warnings, options);
  for (const draft of content.files) collector.add(draft);

  const metaData = payload?.meta_data;
  if (metaData !== undefined && !isObject(metaData)) warnings.push('meta_data is not an object; ignored');
  const retryable = payload?.retryable;
  if (retryable !== undefined && typeof retryable !== 'boolean')
    warnings.push('retryable is not a boolean; ignored');

  const results = pickResults(payload, text);
  const display = readDisplay(payload?.display, collector, warnings);
  let canvas: ToolOutcome['canvas'];
  if (payload?.canvas !== undefined) {
    const parsed = CanvasEnvelopeSchema.safeParse(payload.canvas);
    if (parsed.success) canvas = parsed.data;
    else warnings.push(`canvas ignored: ${describeIssues(parsed.error)}`);
  }

  const isError = callToolResult.isError === true || (isObject(metaData) && metaData.is_error === true);
  const outcome: ToolOutcome = {
    form: detectForm(payload, collector, text),
    isError,
    results,
    text: payload ? text : [],
    files: collector.files,
    deferred: collector.deferred,
    rejected: collector.rejected,
    display,
    warnings,
  };
  if (isObject(metaData)) outcome.metaData = metaData;
  if (typeof retryable === 'boolean') outcome.retryable = retryable;
  if (canvas) outcome.canvas = canvas;
  if (isError) outcome.error = readError(results, text, isObject(metaData) ? metaData : undefined, retryable);
  return { ok: true, outcome };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

function pickPayload(result: Json, jsonTexts: Json[], warnings: string[]): Json | undefined {
  if (result.structuredContent !== undefined) {
    if (isObject(result.structuredContent)) return result.structuredContent;
    warnings.push('structuredContent is not an object; ignored');
  }
  if (jsonTexts.length > 0) {
    if (jsonTexts.length > 1)
      warnings.push(`${jsonTexts.length} JSON objects in text blocks; the first is the result`);
    return jsonTexts[0];
  }
  // Protocol 2024-10-07 servers answered `{ toolResult }`.
  if (isObject(result.toolResult)) return result.toolResult;
  return undefined;
}

function collectPayloadFiles(
  payload: Json,
  collector: FileCollector,
  warnings: string[],
  options: NormalizeOptions,
) {
  const hasArtifacts = payload.artifacts !== undefined;
  if (hasArtifacts) {
    eachItem(payload.artifacts, 'artifacts', warnings, (item, index) => {
      const parsed = ArtifactSchema.safeParse(item);
      if (!parsed.success)
        return rejectItem(collector, 'artifact', index, item, describeIssues(parsed.error));
      const a = parsed.data;
      collector.add({
        origin: 'artifact',
        index,
        name: a.name,
        mime: a.mime,
        mimeRequired: true,
        b64: a.b64,
        path: a.path,
        size: a.size,
        description: a.description,
        viewer: a.viewer,
        category: a.category,
        autoOpen: a.auto_open,
      });
    });
  }

  if (payload.deferred_artifacts !== undefined) {
    const defaultHours = options.deferredExpiresHours ?? DEFAULT_DEFERRED_EXPIRES_HOURS;
    eachItem(payload.deferred_artifacts, 'deferred_artifacts', warnings, (item, index) => {
      const parsed = DeferredArtifactSchema.safeParse(item);
      if (!parsed.success)
        return rejectItem(collector, 'deferred_artifact', index, item, describeIssues(parsed.error));
      const d = parsed.data;
      const deferred = { nextActions: d.next_actions ?? [], expiresHours: d.expires_hours ?? defaultHours };
      collector.add({
        origin: 'deferred_artifact',
        index,
        name: d.name,
        mime: d.mime,
        mimeRequired: true,
        b64: d.b64,
        path: d.path,
        description: d.description,
        category: d.category,
        deferred: d.reason === undefined ? deferred : { ...deferred, reason: d.reason },
      });
    });
  }

  const hasLegacy = payload.returned_file_names !== undefined;
  const hasReturned = payload.returned_file_name !== undefined || payload.returned_file_base64 !== undefined;
  if (hasArtifacts && (hasLegacy || hasReturned)) {
    // v2 §1: "If both are present, artifacts wins."
    warnings.push('artifacts present: legacy returned_file_* fields ignored');
    return;
  }
  if (hasLegacy) {
    const names = Array.isArray(payload.returned_file_names) ? payload.returned_file_names : [];
    const contents = Array.isArray(payload.returned_file_contents) ? payload.returned_file_contents : [];
    if (!Array.isArray(payload.returned_file_names))
      warnings.push('returned_file_names is not an array; ignored');
    for (let index = 0; index < Math.max(names.length, contents.length); index++) {
      if (index >= contents.length) {
        rejectItem(
          collector,
          'legacy_array',
          index,
          { name: names[index] },
          'no matching returned_file_contents entry',
        );
      } else {
        collector.add({ origin: 'legacy_array', index, name: names[index], b64: contents[index] ?? null });
      }
    }
  }
  if (hasReturned) {
    collector.add({
      origin: 'returned_file',
      index: 0,
      name: payload.returned_file_name,
      b64: payload.returned_file_base64,
    });
  }
}

function eachItem(
  list: unknown,
  field: string,
  warnings: string[],
  visit: (item: unknown, index: number) => void,
) {
  if (!Array.isArray(list)) {
    warnings.push(`${field} is not an array; ignored`);
    return;
  }
  list.forEach(visit);
}

function rejectItem(
  collector: FileCollector,
  origin: 'artifact' | 'deferred_artifact' | 'legacy_array',
  index: number,
  item: unknown,
  reason: string,
) {
  const name = isObject(item) && typeof item.name === 'string' ? item.name : undefined;
  collector.rejected.push({
    origin,
    index,
    name,
    code: 'E_INVALID_INPUT',
    reason: `${origin}[${index}]: ${reason}`,
  });
}

function pickResults(payload: Json | undefined, text: string[]): unknown {
  if (payload && Object.hasOwn(payload, 'results')) return payload.results;
  if (payload) {
    const rest = Object.fromEntries(
      Object.entries(payload).filter(([key]) => !(CONTRACT_KEYS as readonly string[]).includes(key)),
    );
    if (Object.keys(rest).length > 0) return rest;
  }
  return text.length > 0 ? text.join('\n') : null;
}

function detectForm(payload: Json | undefined, collector: FileCollector, text: string[]): OutcomeForm {
  if (payload) {
    const artifacts = Array.isArray(payload.artifacts) ? payload.artifacts : [];
    const display = isObject(payload.display) ? payload.display : {};
    const v21 =
      payload.deferred_artifacts !== undefined ||
      payload.retryable !== undefined ||
      (isObject(payload.meta_data) && payload.meta_data.is_error !== undefined) ||
      artifacts.some(
        (a) => isObject(a) && (a.path !== undefined || a.category !== undefined || a.auto_open !== undefined),
      ) ||
      ['storage_action', 'category_hint', 'notification'].some((key) => display[key] !== undefined);
    if (v21) return 'v2.1';
    if (payload.artifacts !== undefined || payload.display !== undefined || payload.canvas !== undefined)
      return 'v2';
    if (payload.returned_file_names !== undefined) return 'legacy-arrays';
    if (payload.returned_file_name !== undefined) return 'file-injection';
    return 'json';
  }
  const mcpFiles = [...collector.files, ...collector.rejected].some((f) => f.origin.startsWith('mcp_'));
  if (mcpFiles) return 'mcp-content';
  return text.length > 0 ? 'text' : 'empty';
}

function readError(
  results: unknown,
  text: string[],
  meta: Json | undefined,
  retryable: unknown,
): OutcomeError {
  const fromResults =
    isObject(results) && typeof results.error === 'string'
      ? results.error
      : typeof results === 'string' && results !== ''
        ? results
        : undefined;
  const error: OutcomeError = {
    code: typeof meta?.error_code === 'string' ? meta.error_code : 'E_TOOL_ERROR',
    message: fromResults ?? (text.length > 0 ? text.join('\n') : ERROR_CODES.E_TOOL_ERROR.message),
    details: isObject(meta?.details) ? meta.details : {},
    retryable:
      typeof meta?.retryable === 'boolean'
        ? meta.retryable
        : typeof retryable === 'boolean'
          ? retryable
          : false,
  };
  if (typeof meta?.reason === 'string') error.reason = meta.reason;
  return error;
}
