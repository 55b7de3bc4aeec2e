// The configured MCP servers and their tools, as GET /api/servers and /api/servers/:server/tools
// show them (apps/ferry/src/routes/servers.ts). Only what a client needs: never a server's
// command, environment, URL or headers (they may hold secrets and host paths).
import { z } from 'zod';
import { ToolUiSchema } from './mcp-apps-api.js';

/** The property a tool's inputSchema carries, with the injected kind, on each injected parameter. */
export const INJECTED_MARK = 'x-ferry-injected';

export const ServerDtoSchema = z
  .object({
    name: z.string(),
    transport: z.enum(['stdio', 'http', 'sse']),
    enabled: z.boolean(),
    fileMode: z.enum(['path', 'url', 'data-uri']),
    timeouts: z.object({
      noticeSeconds: z.array(z.number()),
      timeoutSeconds: z.number(),
      hardCapSeconds: z.number(),
    }),
  })
  .meta({ id: 'Server' });
export type ServerDto = z.infer<typeof ServerDtoSchema>;

export const ServerListSchema = z.object({ items: z.array(ServerDtoSchema) });
export type ServerList = z.infer<typeof ServerListSchema>;

/** A parameter Ferry fills or rewrites (apps/ferry/src/tools/injected-params.ts), so clients hide it. */
const InjectedParamSchema = z.object({
  name: z.string(),
  /** `x-mcp-file-name`: the filename argument paired with an x-mcp-file input (filled from its pick). */
  kind: z.enum([
    'username',
    'filename',
    'filenames',
    'file_names',
    'file_data_base64',
    'x-mcp-file',
    'x-mcp-file-name',
  ]),
  /** host: never shown or asked for; file-name(s): pick from My Files by name; file-picker: pick a file (sent as fileInputs). */
  input: z.enum(['host', 'file-name', 'file-names', 'file-picker']),
  /** Not shown to a model (the host fills it, or the user picks the file). */
  hiddenFromModel: z.boolean(),
});
export type InjectedParam = z.infer<typeof InjectedParamSchema>;

/** An x-mcp-file input (SEP-2356): answered with My Files ids (StartCallBody `fileInputs`). */
const ToolFileInputSchema = z.object({
  name: z.string(),
  multiple: z.boolean(),
  required: z.boolean(),
  accept: z.array(z.string()).optional(),
  maxSize: z.number().optional(),
});
export type ToolFileInput = z.infer<typeof ToolFileInputSchema>;

export const ToolDtoSchema = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: z
      .record(z.string(), z.unknown())
      .describe(`The tool's inputSchema; injected properties carry "${INJECTED_MARK}": <kind>`),
    annotations: z.record(z.string(), z.unknown()).optional(),
    injected: z.array(InjectedParamSchema),
    fileInputs: z.array(ToolFileInputSchema),
    /**
     * MCP Apps (SEP-1865): the tool's `ui://` view and who may call it, from its `_meta.ui`
     * (mcp-apps-api.ts readToolUi). Absent: the tool declares no MCP Apps metadata.
     */
    ui: ToolUiSchema.optional(),
  })
  .meta({ id: 'Tool' });
export type ToolDto = z.infer<typeof ToolDtoSchema>;

export const ToolListSchema = z.object({ server: z.string(), items: z.array(ToolDtoSchema) });
export type ToolList = z.infer<typeof ToolListSchema>;
