// How big and how deep a tool's result may be before the host stops reading it (docs/contract.md
// "Result limits"). Both protect Ferry, not the model: a result is held in memory several times
// over while it is parsed, normalized and stored (bytes, string, objects), and every reader that
// walks it (a redactor, JSON.stringify for the API) recurses once per level of nesting.

/**
 * Largest result (one JSON-RPC message) the host reads: 64 MiB. A result is held about three to
 * four times while it is parsed and answered, so this bounds one call to ~256 MiB of Ferry's
 * memory. Inline base64 costs 4/3 of the file, so a file up to ~48 MiB still fits; anything
 * larger belongs in an artifact with a `path` (read from the workspace as a stream, bounded only
 * by `max_file_size_mb`), which is also what `base64_size_limit_mb` (300 MB by default) assumes
 * a tool does long before it reaches that limit. Raise it per host (`maxResultBytes`) if inline
 * files above ~48 MiB matter more than the memory.
 */
export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024 * 1024;

/**
 * Longest text of a tool's answer the model is given: 16,000 characters. The host stores a result
 * whose answer would be longer in My Files and gives the model its beginning and the file's name
 * (packages/host/src/pipeline/store-large-result.ts); the agent cuts anything still longer with a
 * note. One number for both, so neither cuts what the other sized (FERRY_LLM_MAX_RESULT_CHARS).
 */
export const DEFAULT_MODEL_RESULT_CHARS = 16_000;

/**
 * Deepest nesting of objects and arrays read in a result (the CallToolResult is level 1) or in a
 * JSON payload a tool put in a text block. Real results stay within a dozen levels; past a few
 * thousand, recursive readers (JSON.stringify among them) throw RangeError.
 */
export const MAX_RESULT_DEPTH = 64;

/** Why a result too deep is not read, as the call's error says it. */
export function tooDeepReason(maxDepth: number = MAX_RESULT_DEPTH): string {
  return `the result is nested deeper than ${maxDepth} levels, the most Ferry reads`;
}

/** `67108864` → `64 MiB`; sizes that are not whole MiB keep one decimal or stay in bytes. */
export function formatLimitBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  const kib = bytes / 1024;
  return kib >= 1 ? `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KiB` : `${bytes} bytes`;
}

/**
 * Whether objects and arrays nest deeper than `maxDepth` in `value` (a plain JSON value; `value`
 * itself is level 1 when it is an object or array). Iterative, so any depth is safe to ask about,
 * and it stops at the first path too deep.
 */
export function exceedsDepth(value: unknown, maxDepth: number = MAX_RESULT_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
