// Reads MCP-native content blocks: text (plain or a JSON payload), image, audio, embedded
// resources (text or blob) and resource links. File-like blocks become drafts for the collector.
import type { FileDraft } from './collect-files.js';

export interface McpContent {
  texts: string[];
  /** Text blocks that hold a JSON object: candidates for the result payload. */
  jsonTexts: Record<string, unknown>[];
  files: FileDraft[];
}

export function readMcpContent(result: Record<string, unknown>, warnings: string[]): McpContent {
  const out: McpContent = { texts: [], jsonTexts: [], files: [] };
  if (result.content === undefined) return out;
  if (!Array.isArray(result.content)) {
    warnings.push('content is not an array; ignored');
    return out;
  }
  const counters = { image: 0, audio: 0, resource: 0 };
  for (const [index, block] of (result.content as unknown[]).entries()) {
    if (typeof block !== 'object' || block === null) {
      warnings.push(`content[${index}] is not an object`);
      continue;
    }
    const b = block as Record<string, unknown>;
    switch (b.type) {
      case 'text':
        readText(b.text, index, out, warnings);
        break;
      case 'image':
      case 'audio': {
        const kind = b.type;
        out.files.push({
          origin: kind === 'image' ? 'mcp_image' : 'mcp_audio',
          index,
          name: `${kind}-${++counters[kind]}`,
          generatedName: true,
          mime: b.mimeType,
          b64: typeof b.data === 'string' ? b.data : undefined,
        });
        break;
      }
      case 'resource':
        readResource(b.resource, index, counters, out, warnings);
        break;
      case 'resource_link': {
        const uri = typeof b.uri === 'string' ? b.uri : undefined;
        out.files.push({
          origin: 'mcp_resource_link',
          index,
          name: typeof b.name === 'string' && b.name !== '' ? b.name : nameFromUri(uri),
          generatedName: true,
          mime: b.mimeType,
          uri,
          size: b.size,
          description: typeof b.description === 'string' ? b.description : b.title,
        });
        break;
      }
      default:
        warnings.push(`content[${index}] has unknown type ${JSON.stringify(b.type)}; ignored`);
    }
  }
  return out;
}

function readText(text: unknown, index: number, out: McpContent, warnings: string[]): void {
  if (typeof text !== 'string') return void warnings.push(`content[${index}] text block has no text`);
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        out.jsonTexts.push(value as Record<string, unknown>);
        return;
      }
    } catch (error) {
      warnings.push(
        `content[${index}] looks like JSON but does not parse (${(error as Error).message}); kept as text`,
      );
    }
  }
  out.texts.push(text);
}

function readResource(
  resource: unknown,
  index: number,
  counters: { resource: number },
  out: McpContent,
  warnings: string[],
): void {
  if (typeof resource !== 'object' || resource === null) {
    return void warnings.push(`content[${index}] resource block has no resource`);
  }
  const r = resource as Record<string, unknown>;
  const uri = typeof r.uri === 'string' ? r.uri : undefined;
  const draft: FileDraft = {
    origin: 'mcp_resource',
    index,
    name: nameFromUri(uri) ?? `resource-${++counters.resource}`,
    generatedName: true,
    mime: r.mimeType,
  };
  if (typeof r.blob === 'string') draft.b64 = r.blob;
  else if (typeof r.text === 'string') {
    draft.text = r.text;
    if (r.mimeType === undefined) draft.mime = 'text/plain';
  }
  out.files.push(draft);
}

/** Last path segment of a URI, percent-decoded; undefined when there is none. */
function nameFromUri(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  const path = uri.replace(/[?#].*$/, '').replace(/^[a-z][a-z0-9+.-]*:\/*/i, '');
  const last = path.split('/').filter(Boolean).pop();
  return last && last.length > 0 ? last : undefined;
}
