// The tools offered to the model: every enabled server's tools, named per tool-names.ts, with the
// parameters the host fills removed (username, file_data_base64 beside filename, the filename
// argument paired with an x-mcp-file input) by the host's own
// resolveConventions, so the model can neither see nor fill them. File name parameters say what
// they take: names from the user's files, never paths or bytes. An x-mcp-file input (SEP-2356)
// becomes such a name slot, optional for the model: the SEP lets a host "replace it with a
// sentinel the model can emit to request host-side substitution", and a name is that sentinel.
// Ferry resolves it and the user approves the file before anything is sent (file-inputs.ts).
// A tool whose MCP Apps visibility (SEP-1865 `_meta.ui.visibility`) leaves out "model" is for
// its view alone: the spec says a host "MUST NOT include" it in the agent's tool list, so it is
// not offered, and a model that names it anyway is refused (run-tool-call.ts, `appOnly`).
import { type FileInput, formatBytes, isModelVisible, stripFileInputs } from '@ferry/contract';
import { type Host, resolveConventions, type ToolConventions } from '@ferry/host';
import type { ModelTool } from './model-client.js';
import { createToolNameTable, type ToolNameTable, type ToolRef } from './tool-names.js';

export type AgentHost = Pick<Host, 'registry' | 'listTools' | 'callTool'>;

export const FILENAME_DESCRIPTION = "Name of a file in the user's files (as listed in the available files)";
export const FILENAMES_DESCRIPTION = "Names of files in the user's files (as listed in the available files)";
const FILE_INPUT_NOTE =
  'Optional: leave it out and the user picks the file. Ferry shows the user which file goes to this tool and sends it once the user approves; never a path, URL or file contents.';
const MAX_DESCRIPTION_CHARS = 1024;

export interface OfferedTool extends ToolRef {
  name: string;
  conventions: ToolConventions;
  /** The schema the model sees; its arguments are checked against it. */
  parameters: Record<string, unknown>;
  /** Properties the host fills: anything the model sends for them is dropped. */
  hidden: ReadonlySet<string>;
  /** x-mcp-file argument → what the tool says the file is for (shown to the user who picks it). */
  fileInputDescriptions: ReadonlyMap<string, string>;
}

/** What the model reads about an x-mcp-file input it may name a file for. */
function fileInputDescription(input: FileInput, original: unknown): string {
  const head = input.multiple ? FILENAMES_DESCRIPTION : FILENAME_DESCRIPTION;
  const limits = [
    input.descriptor.accept?.length ? `accepts ${input.descriptor.accept.join(', ')}` : '',
    input.descriptor.maxSize === undefined ? '' : `at most ${formatBytes(input.descriptor.maxSize)}`,
  ].filter(Boolean);
  // The tool's own text says what the file is for; a "data URI" in it is not for the model.
  const purpose = typeof original === 'string' && original.trim() !== '' ? `. For: ${original.trim()}` : '';
  return `${head}${purpose}${limits.length ? ` (${limits.join(', ')})` : ''}. ${FILE_INPUT_NOTE}`;
}

export interface ToolCatalog {
  tools: ModelTool[];
  byName: ReadonlyMap<string, OfferedTool>;
  names: ToolNameTable;
  /** Servers whose tools could not be listed (not started, not answering): named, no paths. */
  unavailable: { server: string; reason: string }[];
  /** App-only tools (MCP Apps visibility without "model") by the name they would have had. */
  appOnly: ReadonlyMap<string, ToolRef>;
}

export async function collectModelTools(host: AgentHost, username: string): Promise<ToolCatalog> {
  const servers = host.registry.list().filter((server) => server.enabled);
  const listed = await Promise.allSettled(servers.map((server) => host.listTools(server.name, username)));
  const found: { ref: ToolRef; description: string; inputSchema: unknown }[] = [];
  const hiddenRefs: ToolRef[] = [];
  const unavailable: ToolCatalog['unavailable'] = [];
  listed.forEach((result, i) => {
    const server = (servers[i] as { name: string }).name;
    if (result.status === 'rejected') {
      unavailable.push({ server, reason: 'the server did not start or answer' });
      return;
    }
    for (const tool of result.value) {
      if (!isModelVisible(tool._meta)) {
        hiddenRefs.push({ server, tool: tool.name });
        continue;
      }
      found.push({
        ref: { server, tool: tool.name },
        description: tool.description ?? tool.title ?? tool.name,
        inputSchema: tool.inputSchema,
      });
    }
  });
  // App-only tools are named with the others, so the model's names do not depend on them.
  const names = createToolNameTable([...found.map((f) => f.ref), ...hiddenRefs]);
  const appOnly = new Map<string, ToolRef>();
  for (const ref of hiddenRefs) appOnly.set(names.nameOf(ref) as string, ref);
  const byName = new Map<string, OfferedTool>();
  const tools: ModelTool[] = [];
  for (const entry of found) {
    const name = names.nameOf(entry.ref) as string;
    const shown = modelSchema(entry.inputSchema);
    byName.set(name, { ...entry.ref, name, ...shown });
    tools.push({
      name,
      description: `${truncate(entry.description, MAX_DESCRIPTION_CHARS)} (server: ${entry.ref.server})`,
      parameters: shown.parameters,
    });
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, byName, names, unavailable, appOnly };
}

/** The inputSchema as the model may see it. Pure: the input is not changed. */
export function modelSchema(inputSchema: unknown): {
  parameters: Record<string, unknown>;
  conventions: ToolConventions;
  hidden: ReadonlySet<string>;
  fileInputDescriptions: ReadonlyMap<string, string>;
} {
  const conventions = resolveConventions(inputSchema);
  const hidden = new Set<string>();
  if (conventions.username) hidden.add('username');
  if (conventions.fileDataBase64) hidden.add('file_data_base64');
  // SEP-2356: the host fills a paired filename argument from the user's pick; the model never does.
  for (const pair of conventions.fileNameArguments) hidden.add(pair.argument);
  // The URI slot goes (and leaves `required`): the model gets a file-name slot in its place.
  const base = isObject(inputSchema) ? (stripFileInputs(inputSchema) as Record<string, unknown>) : {};
  const properties: Record<string, unknown> = isObject(base.properties) ? { ...base.properties } : {};
  for (const key of hidden) delete properties[key];
  const original = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const fileInputDescriptions = new Map<string, string>();
  for (const input of conventions.fileInputs) {
    const key = input.path[0] as string;
    const declared = original[key];
    const said = isObject(declared) ? (declared.description ?? declared.title) : undefined;
    if (typeof said === 'string' && said.trim() !== '') fileInputDescriptions.set(key, said.trim());
    const description = fileInputDescription(input, said);
    properties[key] = input.multiple
      ? { type: 'array', items: { type: 'string' }, description }
      : { type: 'string', description };
  }
  const describe = (key: string, text: string) => {
    const property = properties[key];
    if (isObject(property)) properties[key] = { ...property, description: text };
  };
  if (conventions.filename) describe('filename', FILENAME_DESCRIPTION);
  if (conventions.filenames) describe('filenames', FILENAMES_DESCRIPTION);
  if (conventions.fileNames) describe('file_names', FILENAMES_DESCRIPTION);
  // `$schema`/`$id` trip some endpoints' validators; the rest of the schema is the tool's own.
  const { $schema: _schema, $id: _id, ...rest } = base;
  const parameters: Record<string, unknown> = { ...rest, type: 'object', properties };
  if (Array.isArray(base.required)) {
    parameters.required = base.required.filter((key) => typeof key === 'string' && !hidden.has(key));
  }
  return { parameters, conventions, hidden, fileInputDescriptions };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
