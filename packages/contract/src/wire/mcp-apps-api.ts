// MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`, stable 2026-01-26): a tool points at
// an interactive `ui://` view through `_meta.ui.resourceUri`, and says who may call it through
// `_meta.ui.visibility`. Ferry reads that metadata here, once, for the tool listing
// (servers-api.ts `ui`), the model's tool list (packages/agent) and the view fetch
// (GET /api/servers/:server/ui-resource, apps/ferry/src/routes/ui-resources.ts). What a server
// writes there is untrusted: anything that does not fit is dropped, never passed on.
import { z } from 'zod';

/** The extension's identifier: a client lists it under `capabilities.extensions` (with mimeTypes). */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The only view type SEP-1865 defines; a `resources/read` of a view must answer with it. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The scheme every view's URI uses. */
const UI_URI_PREFIX = 'ui://';
/** Longest view URI Ferry accepts (it travels in a query string). */
const MAX_UI_URI_CHARS = 2048;

export const UI_VISIBILITIES = ['model', 'app'] as const;
export type UiVisibility = (typeof UI_VISIBILITIES)[number];

/** A tool's view and who may call it, as the tool listing shows them. */
export const ToolUiSchema = z
  .object({
    resourceUri: z.string().startsWith(UI_URI_PREFIX).max(MAX_UI_URI_CHARS).optional(),
    /** `model`: offered to and callable by the model; `app`: callable by the server's own view. */
    visibility: z.array(z.enum(UI_VISIBILITIES)),
  })
  .meta({ id: 'ToolUi' });
export type ToolUi = z.infer<typeof ToolUiSchema>;

/**
 * What a tool's `_meta` says about MCP Apps; undefined when it says nothing (no `ui` object and no
 * deprecated flat `ui/resourceUri`). A resourceUri that is not a `ui://` URI is dropped; unknown
 * visibility values are ignored; a missing (or unreadable) visibility is both, the spec's default.
 * A visibility left empty by that filtering keeps the tool from both (fail closed: the server
 * asked for something Ferry does not know, so it offers the tool to nobody).
 */
export function readToolUi(meta: unknown): ToolUi | undefined {
  if (!isObject(meta)) return undefined;
  const ui = isObject(meta.ui) ? meta.ui : undefined;
  // Deprecated by SEP-1865 ("will be removed before GA"), still sent by older servers.
  const flat = meta['ui/resourceUri'];
  if (ui === undefined && flat === undefined) return undefined;
  const uri = ui?.resourceUri ?? flat;
  const resourceUri = isUiUri(uri) ? uri : undefined;
  const declared = ui?.visibility;
  const visibility: UiVisibility[] = Array.isArray(declared)
    ? UI_VISIBILITIES.filter((value) => declared.includes(value))
    : [...UI_VISIBILITIES];
  if (resourceUri === undefined && ui === undefined) return undefined;
  return resourceUri === undefined ? { visibility } : { resourceUri, visibility };
}

/** The model may see and call the tool (no MCP Apps metadata: it may). */
export function isModelVisible(meta: unknown): boolean {
  return readToolUi(meta)?.visibility.includes('model') ?? true;
}

export function isUiUri(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(UI_URI_PREFIX) && value.length <= MAX_UI_URI_CHARS;
}

/** Origins a view asks for (SEP-1865 McpUiResourceCsp); each becomes a CSP source of the sandbox. */
const DomainListSchema = z.array(z.string().min(1).max(512)).max(64);

/** A permission a view asks for: an empty object in the spec (zod strips whatever it holds). */
const PermissionSchema = z.object({});

/**
 * The view's `_meta.ui` from its `resources/read` content (SEP-1865 UIResourceMeta). Unknown
 * fields are dropped; a field of the wrong type fails the parse (the route then drops that field).
 */
export const UiResourceMetaSchema = z
  .object({
    csp: z
      .object({
        /** fetch/XHR/WebSocket origins (CSP connect-src); empty or absent: none. */
        connectDomains: DomainListSchema.optional(),
        /** Scripts, images, styles, fonts, media (img-src, script-src, …); empty or absent: none. */
        resourceDomains: DomainListSchema.optional(),
        /** Nested iframes (frame-src); empty or absent: `frame-src 'none'`. */
        frameDomains: DomainListSchema.optional(),
        /** Document base URIs (base-uri); empty or absent: `base-uri 'self'`. */
        baseUriDomains: DomainListSchema.optional(),
      })
      .optional(),
    permissions: z
      .object({
        camera: PermissionSchema.optional(),
        microphone: PermissionSchema.optional(),
        geolocation: PermissionSchema.optional(),
        clipboardWrite: PermissionSchema.optional(),
      })
      .optional(),
    /** A dedicated origin the view asks for; host-dependent, Ferry may ignore it. */
    domain: z.string().max(253).optional(),
    /** true: the host draws a border and background; false: none; absent: the host decides. */
    prefersBorder: z.boolean().optional(),
  })
  .meta({ id: 'UiResourceMeta' });
export type UiResourceMeta = z.infer<typeof UiResourceMetaSchema>;

/**
 * `meta` read field by field: a field that does not fit is dropped alone, so one bad list does
 * not cost the view its other settings. An unreadable `csp` is dropped whole, which is the
 * spec's restrictive default (no external origins).
 */
export function readUiResourceMeta(meta: unknown): UiResourceMeta {
  if (!isObject(meta)) return {};
  const shape = UiResourceMetaSchema.shape;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape) as (keyof typeof shape)[]) {
    if (meta[key] === undefined) continue;
    const parsed = shape[key].safeParse(meta[key]);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as UiResourceMeta;
}

/** GET /api/servers/:server/ui-resource's query. */
export const UiResourceQuerySchema = z.strictObject({
  uri: z
    .string()
    .startsWith(UI_URI_PREFIX, `must be a ${UI_URI_PREFIX} URI`)
    .max(MAX_UI_URI_CHARS)
    .describe("A view's URI, as one of the server's tools declares it (ui.resourceUri)"),
});

/** GET /api/servers/:server/ui-resource: the view's HTML and what it asks of its sandbox. */
export const UiResourceSchema = z
  .object({
    uri: z.string(),
    mimeType: z.literal(MCP_APP_MIME_TYPE),
    /** The whole HTML document (a `blob` content decoded as UTF-8). */
    html: z.string(),
    meta: UiResourceMetaSchema,
  })
  .meta({ id: 'UiResource' });
export type UiResource = z.infer<typeof UiResourceSchema>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
