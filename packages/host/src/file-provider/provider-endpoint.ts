// One user's file-provider endpoint over node:http, shared by Ferry's HTTP routes and the per-user
// Unix sockets. In order:
//   enabled?          404 when the provider is off
//   POST only         405 + Allow: POST (the surfaces are stateless: no GET stream, no DELETE)
//   token             Bearer header or RFC 6750 access_token query parameter, this user's, live;
//                     401 + WWW-Authenticate (only "expired" is told apart from "invalid")
//   body              at most 1 MiB (413), JSON (400, JSON-RPC parse error)
//   surface           compat when the route or the token asks for it, else the SDK server
// Each tools/call reports one ProviderCallbackEvent (never file contents).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { answerCompat, JSONRPC_PARSE_ERROR, jsonRpcError } from './provider-compat.js';
import { type ProviderToolRunner, serveProviderMcp } from './provider-mcp-server.js';
import { type ProviderRun, runProviderTool } from './provider-operations.js';
import type { ProviderGrant, ProviderTokens } from './provider-tokens.js';
import { providerToolDefinitions } from './provider-tool-definitions.js';
import type {
  FileProviderSettings,
  ProviderCallbackEvent,
  ProviderErrorType,
  ProviderResult,
  ProviderScope,
} from './provider-types.js';

/** A callback is a small JSON-RPC message; paths and patterns, never file contents. */
export const MAX_PROVIDER_BODY_BYTES = 1024 * 1024;
const MAX_EVENT_PATH_CHARS = 512;

export interface ProviderEndpointOptions {
  tokens: ProviderTokens;
  settings: FileProviderSettings;
  scopeFor(username: string): Promise<ProviderScope>;
  /** One event per tools/call; a throwing listener is ignored. */
  onCallback?(event: ProviderCallbackEvent): void;
}

export interface ProviderRoute {
  /** The user whose files the URL (or socket) names; the token must be theirs. */
  username: string;
  /** The compatibility surface (/compat). */
  compat: boolean;
}

export interface ProviderEndpoint {
  /** `parsedBody`: the JSON body when a framework already read it. */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    route: ProviderRoute,
    parsedBody?: unknown,
  ): Promise<void>;
}

export function createProviderEndpoint(options: ProviderEndpointOptions): ProviderEndpoint {
  const { tokens, settings } = options;

  const runnerFor = (scope: ProviderScope, grant: ProviderGrant): ProviderToolRunner => {
    const tools = providerToolDefinitions(scope.settings);
    return {
      tools,
      async call(tool, args, signal) {
        const started = performance.now();
        // runProviderTool refuses a tool the settings leave out, as tools/list does not show it.
        const run: ProviderRun = await runProviderTool(scope, tool, args, signal).catch(() => ({
          // A bug, not a caller's mistake: say nothing about it to the caller.
          result: providerError('FileProviderError', 'Internal error in the file provider'),
        }));
        const { result } = run;
        report(options.onCallback, {
          username: grant.username,
          ...(grant.server !== undefined ? { server: grant.server } : {}),
          grantId: grant.grantId,
          tool: tool.slice(0, 100),
          ...(run.path !== undefined ? { path: run.path.slice(0, MAX_EVENT_PATH_CHARS) } : {}),
          ok: result.ok,
          ...(result.ok ? {} : { errorType: result.error.error_type }),
          ...(run.bytes !== undefined ? { bytes: run.bytes } : {}),
          ...(run.count !== undefined ? { count: run.count } : {}),
          durationMs: Math.round(performance.now() - started),
        });
        return result;
      },
    };
  };

  return {
    async handle(req, res, route, parsedBody) {
      if (!settings.enabled)
        return sendJson(res, 404, jsonRpcError(null, -32000, 'The file provider is off'));
      if (req.method !== 'POST') {
        return sendJson(res, 405, jsonRpcError(null, -32000, 'Method not allowed: POST only'), {
          allow: 'POST',
        });
      }
      const token = tokenOf(req);
      if (token === 'twice') {
        return sendJson(res, 400, jsonRpcError(null, -32001, 'Send the token once: header or access_token'), {
          'www-authenticate': 'Bearer error="invalid_request"',
        });
      }
      const checked = tokens.verify(token, route.username);
      if (!checked.ok) {
        const expired = checked.reason === 'expired';
        return sendJson(
          res,
          401,
          jsonRpcError(null, -32001, expired ? 'Unauthorized: expired token' : 'Unauthorized: invalid token'),
          {
            'www-authenticate': expired
              ? 'Bearer error="invalid_token", error_description="token expired"'
              : 'Bearer error="invalid_token"',
          },
        );
      }

      let body = parsedBody;
      if (body === undefined) {
        const read = await readJsonBody(req);
        if (read.status !== 200) {
          return sendJson(res, read.status, read.error, read.status === 413 ? { connection: 'close' } : {});
        }
        body = read.body;
      }

      let scope: ProviderScope;
      try {
        scope = await options.scopeFor(route.username);
      } catch {
        return sendJson(res, 500, jsonRpcError(null, -32603, 'The file provider cannot serve this user now'));
      }
      const runner = runnerFor(scope, checked.grant);
      if (!route.compat && !checked.grant.compat) return serveProviderMcp(req, res, body, runner);

      const aborted = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) aborted.abort();
      });
      const answer = await answerCompat(body, runner, aborted.signal);
      if (answer.status === 202) {
        res.writeHead(202).end();
        return;
      }
      sendJson(res, answer.status, answer.body);
    },
  };
}

function providerError(errorType: ProviderErrorType, message: string): ProviderResult {
  return { ok: false, error: { error: message, error_type: errorType } };
}

function report(
  listener: ((event: ProviderCallbackEvent) => void) | undefined,
  event: ProviderCallbackEvent,
) {
  try {
    listener?.(event);
  } catch {
    // Reporting must not change the answer the caller gets.
  }
}

/** The Bearer token (header or ?access_token=), undefined without one, 'twice' with both. */
function tokenOf(req: IncomingMessage): string | undefined | 'twice' {
  const header = req.headers.authorization;
  const fromHeader = header === undefined ? undefined : (/^Bearer +(\S+) *$/i.exec(header)?.[1] ?? '');
  const query =
    new URL(req.url ?? '/', 'http://provider.invalid').searchParams.get('access_token') ?? undefined;
  if (fromHeader !== undefined && query !== undefined) return 'twice';
  return fromHeader ?? query;
}

type ReadBody =
  | { status: 200; body: unknown }
  | { status: 400 | 413; error: ReturnType<typeof jsonRpcError> };

const TOO_LARGE = { status: 413, error: jsonRpcError(null, -32000, 'Request body too large') } as const;

async function readJsonBody(req: IncomingMessage): Promise<ReadBody> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_PROVIDER_BODY_BYTES) return TOO_LARGE;
  const text = await new Promise<string | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PROVIDER_BODY_BYTES) return void chunks.push(chunk);
      // Stop holding the body; the 413 closes the connection rather than read the rest.
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
  if (text === undefined) return TOO_LARGE;
  try {
    return { status: 200, body: JSON.parse(text) };
  } catch {
    return {
      status: 400,
      error: jsonRpcError(null, JSONRPC_PARSE_ERROR, 'Parse error: the body is not JSON'),
    };
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
