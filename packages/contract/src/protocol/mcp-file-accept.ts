// The parts of SEP-2356 `x-mcp-file` the web app needs (the keyword, `accept` matching for its
// file pickers), apart from the zod-based descriptor parsing of mcp-file.ts: importing them must
// not pull zod into the browser bundle (see apps/web/scripts/bundle-budget.mjs).
import mime from 'mime';
import { mimeEssence, OCTET_STREAM } from '../codecs/mime.js';

export const MCP_FILE_KEYWORD = 'x-mcp-file';

/**
 * Whether a file satisfies `accept`; an absent or empty list accepts everything (SEP: "If omitted,
 * the picker SHOULD accept any file type"). MIME entries compare `type/subtype` only, parameters
 * stripped, case-insensitively, `image/*` matching any image subtype (SEP §Server-side validation).
 * `.ext` entries (HTML accept grammar, "picker hints" in the SEP) match the file name's ending or,
 * since the SEP has servers compare MIME types, the MIME type `mime` maps the extension to.
 */
export function matchesAccept(
  file: { mime: string; name?: string },
  accept: readonly string[] | undefined,
): boolean {
  if (!accept || accept.length === 0) return true;
  const type = mimeEssence(file.mime) || OCTET_STREAM;
  const name = file.name?.toLowerCase();
  return accept.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('.')) {
      return (name !== undefined && entry.length > 1 && name.endsWith(entry)) || mime.getType(entry) === type;
    }
    const wanted = essence(entry);
    if (wanted === '*/*') return true;
    if (wanted.endsWith('/*')) return type.startsWith(wanted.slice(0, -1));
    return wanted === type;
  });
}

/** Lower-cased `type/subtype` of an accept entry, which may hold wildcards (`image/*`). */
function essence(type: string): string {
  return (type.split(';')[0] ?? '').trim().toLowerCase();
}
