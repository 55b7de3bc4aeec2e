import type { Transport } from '@modelcontextprotocol/client';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RemoteServerConfig, ServerConfig } from '../servers/server-config.js';
import { fillUserTemplates } from '../servers/user-template.js';
import type { ServerLauncher } from './launcher.js';
import { ProcessStdioTransport } from './process-stdio-transport.js';

export interface OpenTransportOptions {
  launcher: ServerLauncher;
  /** stderr of a local server. */
  onStderr: (text: string) => void;
  closeGraceMs?: number;
  maxMessageBytes?: number;
}

/**
 * The transport of one (server, user) connection, not yet started (`Client.connect` starts it).
 * Local: the launcher's command in its own process group. Remote: Streamable HTTP or legacy SSE,
 * with `{{user}}` filled in the headers, so one user's session never carries another's identity.
 */
export async function openTransport(
  server: ServerConfig,
  user: string,
  options: OpenTransportOptions,
): Promise<Transport> {
  if (server.transport !== 'stdio') return openRemoteTransport(server, user);
  const spec = await options.launcher(server, user);
  return new ProcessStdioTransport({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    ...(spec.cwd !== undefined && { cwd: spec.cwd }),
    onStderr: options.onStderr,
    ...(options.closeGraceMs !== undefined && { closeGraceMs: options.closeGraceMs }),
    ...(options.maxMessageBytes !== undefined && { maxMessageBytes: options.maxMessageBytes }),
  });
}

export function openRemoteTransport(server: RemoteServerConfig, user: string): Transport {
  const url = new URL(server.url);
  // requestInit headers go on every POST and, for SSE, on the GET that opens the stream.
  const requestInit = { headers: fillUserTemplates(server.headers, user) };
  return server.transport === 'sse'
    ? new SSEClientTransport(url, { requestInit })
    : new StreamableHTTPClientTransport(url, { requestInit });
}

/** Keeps the last few KB of a process's stderr, to quote when it fails to start. */
export class StderrTail {
  #text = '';
  constructor(readonly maxChars = 4096) {}

  push(text: string): void {
    this.#text = (this.#text + text).slice(-this.maxChars);
  }

  get text(): string {
    return this.#text;
  }
}
