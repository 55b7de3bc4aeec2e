// ferry tools ls [server]
import type { ServerList, ToolDto, ToolList } from '@ferry/contract';
import type { Command } from 'commander';
import type { ApiClient } from './api-client.js';
import { type CliIo, contextOf } from './context.js';

/**
 * A tool as GET /api/servers/:server/tools shows it. Differs on purpose: the contract types
 * `inputSchema` as any JSON object; the CLI reads it as the JSON Schema it is.
 */
export type ToolInfo = Omit<ToolDto, 'inputSchema'> & {
  inputSchema: {
    properties?: Record<string, { description?: string; type?: unknown; default?: unknown }>;
    required?: string[];
  };
};

export function addToolsCommand(program: Command, io: CliIo): void {
  const tools = program.command('tools').description('MCP servers and their tools');
  tools
    .command('ls')
    .description('list the tools of one server, or of every enabled server')
    .argument('[server]', 'a server name')
    .action(async (server: string | undefined, _opts: unknown, command: Command) => {
      const ctx = contextOf(command, io);
      const servers = (await ctx.client.json<ServerList>('GET', '/api/servers')).items;
      const wanted = server ? servers.filter((s) => s.name === server) : servers.filter((s) => s.enabled);
      if (server && wanted.length === 0) {
        const { CliError, EXIT } = await import('./exit-codes.js');
        throw new CliError(
          `Unknown server ${server}; configured: ${servers.map((s) => s.name).join(', ')}`,
          EXIT.usage,
        );
      }
      const all: Record<string, ToolInfo[] | { error: string }> = {};
      for (const entry of wanted) {
        try {
          all[entry.name] = await listTools(ctx.client, entry.name);
        } catch (error) {
          if (server) throw error;
          all[entry.name] = { error: (error as Error).message };
        }
      }
      if (ctx.options.json) return ctx.printJson(all);
      for (const [name, list] of Object.entries(all)) {
        ctx.print(`${name}`);
        if (!Array.isArray(list)) {
          ctx.print(`  (unavailable: ${list.error})`);
          continue;
        }
        for (const tool of list)
          ctx.print(
            `  ${tool.name}${signature(tool)}${tool.description ? `  ${firstLine(tool.description)}` : ''}`,
          );
      }
      for (const s of servers.filter((s) => !s.enabled && !server)) ctx.print(`${s.name} (disabled)`);
    });
}

export async function listTools(client: ApiClient, server: string): Promise<ToolInfo[]> {
  return (await client.json<ToolList>('GET', `/api/servers/${encodeURIComponent(server)}/tools`))
    .items as ToolInfo[];
}

/** `(filename*, title?)`: * = a file from My Files; host-filled parameters are left out. */
function signature(tool: ToolInfo): string {
  const hidden = new Set(tool.injected.filter((p) => p.input === 'host').map((p) => p.name));
  const files = new Set(tool.injected.filter((p) => p.input !== 'host').map((p) => p.name));
  const required = new Set(tool.inputSchema.required ?? []);
  const params = Object.keys(tool.inputSchema.properties ?? {})
    .filter((name) => !hidden.has(name))
    .map((name) => `${name}${files.has(name) ? '*' : ''}${required.has(name) ? '' : '?'}`);
  return `(${params.join(', ')})`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}
