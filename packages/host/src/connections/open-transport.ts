import { fillTemplates } from '@ferry/contract';
import type { FetchLike, JSONRPCMessage, OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RemoteServerConfig, ServerConfig } from '../servers/server-config.js';
import type { ConnectionExtras } from './connection-extras.js';
import type { JsonRpcId } from './json-lines.js';
import type { ServerLauncher } from './launcher.js';
import { intakeErrorResponse, resultTooLargeError } from './launcher-failure.js';
import { type ProcessExit, ProcessStdioTransport } from './process-stdio-transport.js';

export interface OpenTransportOptions {
  launcher: ServerLauncher;
  /** stderr of a local server. */
  onStderr: (text: string) => void;
  closeGraceMs?: number;
  /** Largest message read from the server (stdio and Streamable HTTP). @default 64 MiB */
  maxResultBytes?: number;
  /** What this connection adds to the config (the file provider's token, URL and socket). */
  extras?: Omit<ConnectionExtras, 'release'>;
  /** A remote server's OAuth, for this user (connections/oauth); none: static headers only. */
  authProvider?: OAuthClientProvider;
}

/** What a connection may do with a local server's process, whichever transport runs it. */
export interface ServerProcess {
  /** The pid, which is also the process group id; undefined before the transport starts. */
  readonly pid: number | undefined;
  /** How the process ended; undefined while it runs. */
  readonly exit: ProcessExit | undefined;
  /** Kills the process and everything it started, without the grace of `close()`. */
  kill(): Promise<void>;
}

/**
 * A transport with what the connection needs to know about it: a local one comes with its
 * process, so the connection never has to ask which class the transport is.
 */
export type OpenedTransport =
  | { kind: 'local'; transport: Transport; process: ServerProcess }
  | { kind: 'remote'; transport: Transport };

/**
 * The transport of one (server, user) connection, not yet started (`Client.connect` starts it).
 * Local: the launcher's command in its own process group, given the extras. Remote: Streamable
 * HTTP or legacy SSE, with the placeholders filled in the headers (`{{user}}`, the provider's URL
 * and token), so one user's session never carries another's identity.
 */
export async function openTransport(
  server: ServerConfig,
  user: string,
  options: OpenTransportOptions,
): Promise<OpenedTransport> {
  const { extras } = options;
  if (server.transport !== 'stdio') {
    const headers = fillTemplates(server.headers, { ...extras?.placeholders, user });
    return {
      kind: 'remote',
      transport: openRemoteTransport(server, headers, options.maxResultBytes, options.authProvider),
    };
  }
  const spec = await (extras
    ? options.launcher(server, user, {
        env: extras.env,
        sockets: extras.sockets,
        placeholders: extras.placeholders,
      })
    : options.launcher(server, user));
  const transport = new ProcessStdioTransport({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    ...(spec.cwd !== undefined && { cwd: spec.cwd }),
    onStderr: options.onStderr,
    ...(options.closeGraceMs !== undefined && { closeGraceMs: options.closeGraceMs }),
    ...(options.maxResultBytes !== undefined && { maxMessageBytes: options.maxResultBytes }),
  });
  return { kind: 'local', transport, process: transport };
}

function openRemoteTransport(
  server: RemoteServerConfig,
  headers: Record<string, string>,
  maxResultBytes?: number,
  authProvider?: OAuthClientProvider,
): Transport {
  const url = new URL(server.url);
  // requestInit headers go on every POST and, for SSE, on the GET that opens the stream.
  const requestInit = { headers };
  const auth = authProvider && { authProvider };
  // Legacy SSE reads its one long stream through an EventSource of the SDK's own: not limited.
  if (server.transport === 'sse' || maxResultBytes === undefined) {
    return server.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit, ...auth })
      : new StreamableHTTPClientTransport(url, { requestInit, ...auth });
  }
  const transport: Transport = new StreamableHTTPClientTransport(url, {
    requestInit,
    ...auth,
    fetch: limitedFetch(maxResultBytes, (ids) => {
      // The body is cut off at the limit: its full size is never known.
      const error = resultTooLargeError(maxResultBytes);
      for (const id of ids) transport.onmessage?.(intakeErrorResponse(id, error));
    }),
  });
  return transport;
}

/**
 * `fetch` whose response bodies stop at `limit` bytes per message: the whole body of a JSON
 * answer, each event of an event stream. Past it the body fails (so the SDK never holds more)
 * and `onTooLarge` gets the ids of the requests the POST carried, to fail just those calls.
 */
function limitedFetch(limit: number, onTooLarge: (ids: JsonRpcId[]) => void): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const stream = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    /** Bytes of the message being read: since the body began, or the event stream's last event. */
    let size = 0;
    let lineLength = 0;
    let last = -1;
    const limiter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let over = false;
        if (stream) {
          const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          let start = 0;
          for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
            lineLength += newline - start;
            size += newline - start + 1;
            over ||= size > limit;
            const before = newline > start ? bytes[newline - 1] : last;
            // An empty line ends an event: the next one is counted from nothing.
            if (lineLength === 0 || (lineLength === 1 && before === 0x0d)) size = 0;
            lineLength = 0;
            last = 0x0a;
            start = newline + 1;
          }
          lineLength += bytes.length - start;
          size += bytes.length - start;
          if (bytes.length > 0) last = bytes[bytes.length - 1] as number;
        } else size += chunk.byteLength;
        if (over || size > limit) {
          onTooLarge(requestIds(init?.body));
          controller.error(resultTooLargeError(limit));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limiter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Ids of the requests in a POSTed JSON-RPC body (one message or a batch). */
function requestIds(body: unknown): JsonRpcId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as JSONRPCMessage | JSONRPCMessage[];
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message) =>
      'method' in message && 'id' in message && message.id !== undefined ? [message.id] : [],
    );
  } catch {
    return [];
  }
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
