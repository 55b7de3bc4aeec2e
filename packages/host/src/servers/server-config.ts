import {
  FILE_PROVIDER_PLACEHOLDERS,
  placeholdersIn,
  SANDBOX_MODES,
  TIMEOUT_NOTICES,
  TIMEOUT_SECONDS,
} from '@ferry/contract';
import type { SandboxServer } from '@ferry/sandbox';
import { z } from 'zod';
import { parseOrigin } from './canvas-origins.js';

// One entry of the `servers` section of ferry.config, as data. Unknown keys are errors, so a typo
// such as `idleSecond` or an `env` on an HTTP server fails at startup instead of being ignored.
// Each transport has its own schema: a local (stdio) server has a command, an environment and
// sandbox settings; a remote (Streamable HTTP or legacy SSE) server has a URL and headers.

export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const SERVER_TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export const FILE_MODES = ['path', 'url', 'data-uri'] as const;

export type ServerTransport = (typeof SERVER_TRANSPORTS)[number];
/** How a user's file reaches the server's tools (DESIGN.md pipeline step 2). */
export type FileMode = (typeof FILE_MODES)[number];

const seconds = (what: string) => z.number().finite().positive(`${what} must be greater than 0`);
const text = (what: string) => z.string().min(1, `${what} must not be empty`);
const noNul = (what: string) => z.string().refine((s) => !s.includes('\0'), `${what} must not contain NUL`);
const templated = (what: string) =>
  noNul(what).refine(
    (value) => placeholdersIn(value) !== undefined,
    `${what}: the placeholders allowed are {{user}}, {{fileProviderUrl}} and {{fileProviderToken}}`,
  );

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 `token`: what a header name may contain.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const timeoutsSchema = z
  .strictObject({
    /** When the "still running" notices are shown. @default [15, 20, 25] scaled to timeoutSeconds */
    noticeSeconds: z.array(seconds('a notice time')).max(10, 'at most 10 notices').optional(),
    /** Seconds without a response or progress before the call is cancelled. @default 30 */
    timeoutSeconds: seconds('timeoutSeconds').default(TIMEOUT_SECONDS),
    /** Longest a call may run even while it reports progress. @default 600 */
    hardCapSeconds: seconds('hardCapSeconds').default(600),
  })
  .transform((t, ctx) => {
    // Omitted notices keep the spec's schedule (15/20/25 of 30 s) in proportion, so a scaled-down
    // timeout still gets three notices before it fires.
    const scale = t.timeoutSeconds / TIMEOUT_SECONDS;
    const noticeSeconds = t.noticeSeconds ?? TIMEOUT_NOTICES.map((n) => n.afterSeconds * scale);
    noticeSeconds.forEach((at, i) => {
      const previous = noticeSeconds[i - 1];
      if (previous !== undefined && at <= previous) {
        ctx.addIssue({ code: 'custom', message: 'notice times must increase', path: ['noticeSeconds', i] });
      }
      if (at >= t.timeoutSeconds) {
        ctx.addIssue({
          code: 'custom',
          message: `a notice at ${at} s would come after the timeout (${t.timeoutSeconds} s)`,
          path: ['noticeSeconds', i],
        });
      }
    });
    if (t.hardCapSeconds < t.timeoutSeconds) {
      ctx.addIssue({
        code: 'custom',
        message: `hardCapSeconds (${t.hardCapSeconds}) must not be below timeoutSeconds (${t.timeoutSeconds})`,
        path: ['hardCapSeconds'],
      });
    }
    return { noticeSeconds, timeoutSeconds: t.timeoutSeconds, hardCapSeconds: t.hardCapSeconds };
  });

/**
 * Origins (`https://dash.example.com`, no path) a tool's v2 `canvas` envelope may be framed from,
 * normalized as browsers compare them. Absent: a remote server's own origin; none for a local one.
 */
const canvasOriginsSchema = z
  .array(
    z.string().transform((value, ctx) => {
      const check = parseOrigin(value);
      if (check.ok) return check.origin;
      ctx.addIssue({ code: 'custom', message: check.problem });
      return z.NEVER;
    }),
  )
  .max(50, 'canvasOrigins: at most 50 origins');

/**
 * Whether the server's connections get the user's file provider (the client callback tools):
 * a local server its variables and socket, any server the `{{fileProviderUrl}}` and
 * `{{fileProviderToken}}` placeholders. `{ compat: true }`: the compatibility surface, for clients
 * that read a tools/call's JSON-RPC `result` as the bare value. @default false
 */
const fileProviderSchema = z
  .union([z.boolean(), z.strictObject({ compat: z.boolean().default(false) })])
  .default(false)
  .transform((value) =>
    typeof value === 'boolean' ? { enabled: value, compat: false } : { enabled: true, compat: value.compat },
  );

/**
 * Which MCP revision to speak: `auto` probes with `server/discover` and falls back to `initialize`
 * (a server that stays silent on the probe gets the fallback after PROBE_TIMEOUT_MS, once: the
 * verdict is remembered); `2025-11-25` skips the probe (servers that misbehave on it);
 * `2026-07-28` requires the modern revision and fails otherwise. @default 'auto'
 */
export const PROTOCOL_CHOICES = ['auto', '2025-11-25', '2026-07-28'] as const;
export type ProtocolChoice = (typeof PROTOCOL_CHOICES)[number];

/** When a user's connection to a server opens (see `start`). */
const SERVER_STARTS = ['call', 'session'] as const;

const commonShape = {
  protocol: z.enum(PROTOCOL_CHOICES).default('auto'),
  canvasOrigins: canvasOriginsSchema.optional(),
  timeouts: timeoutsSchema.prefault({}),
  /** A connection with no call for this long is closed (and a local process stopped). @default 600 */
  idleSeconds: seconds('idleSeconds').default(600),
  /**
   * When a user's connection opens: `session`, in the background as soon as a session of theirs
   * opens (the web app loads, a CLI run starts), so their first call finds it ready; `call`, on
   * its first use. `session` costs a process per user whether they call it or not. @default 'call'
   */
  start: z.enum(SERVER_STARTS).default('call'),
  /** A disabled server stays listed but cannot be connected to. @default true */
  enabled: z.boolean().default(true),
  fileProvider: fileProviderSchema,
  /**
   * x-mcp-file data URIs carry the file's name as `name=` (`data:<mime>;name=<name>;base64,…`), for
   * servers of the earlier SEP-2356 draft. Off: `data:<mime>;base64,…` as the final text has it,
   * and the name goes to the tool's paired filename argument, if it declares one. @default false
   */
  xMcpFileNameParam: z.boolean().default(false),
};

/**
 * The file provider's placeholders only where the server has it: anywhere else they would be
 * filled with nothing, silently. Each use is an issue at its own field (`args.1`, `env.TOKEN`).
 */
function checkProviderPlaceholders(
  config: {
    fileProvider: { enabled: boolean };
    args?: readonly string[];
    env?: Readonly<Record<string, string>>;
    headers?: Readonly<Record<string, string>>;
  },
  ctx: z.core.$RefinementCtx,
): void {
  if (config.fileProvider.enabled) return;
  const check = (value: string, path: (string | number)[]) => {
    const used = placeholdersIn(value)?.filter((name) =>
      (FILE_PROVIDER_PLACEHOLDERS as readonly string[]).includes(name),
    );
    if (used && used.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${used.map((name) => `{{${name}}}`).join(' and ')} needs fileProvider: true on this server`,
        path,
      });
    }
  };
  for (const [i, arg] of (config.args ?? []).entries()) check(arg, ['args', i]);
  for (const [name, value] of Object.entries(config.env ?? {})) check(value, ['env', name]);
  for (const [name, value] of Object.entries(config.headers ?? {})) check(value, ['headers', name]);
}

const stdioServerSchema = z
  .strictObject({
    transport: z.literal('stdio'),
    command: text('command').pipe(noNul('command')),
    /**
     * Arguments; `{{user}}` is replaced by the username, `{{fileProviderUrl}}` and
     * `{{fileProviderToken}}` (with fileProvider) by the connection's provider URL and token. @default []
     */
    args: z.array(templated('an argument')).default([]),
    /**
     * The only variables the process gets besides a small allowlist (PATH, HOME, LANG, …) and, with
     * fileProvider, FERRY_FILE_PROVIDER_URL/_TOKEN/_SOCKET; values may use the placeholders. @default {}
     */
    env: z
      .record(
        z.string().regex(ENV_NAME, 'env names must be letters, digits and _'),
        templated('an env value'),
      )
      .default({}),
    cwd: text('cwd').optional(),
    /** @default 'path' */
    fileMode: z.enum(FILE_MODES).default('path'),
    /** @default 'auto' */
    sandbox: z.enum(SANDBOX_MODES).default('auto'),
    /** Whether the sandboxed process may use the network. @default false */
    network: z.boolean().default(false),
    ...commonShape,
  })
  .superRefine(checkProviderPlaceholders);

/**
 * OAuth for a remote server (docs/oauth.md). On by default: a server that answers 401 with
 * protected-resource metadata gets each user's own authorization; a server that never asks is
 * not affected. `false` turns it off (a 401 then fails the call as before). `clientId` (with
 * `clientSecret` for a confidential client) is a registration made beforehand, for authorization
 * servers without dynamic registration; `scope` is asked for when the server names none. @default true
 */
const oauthSchema = z
  .union([
    z.boolean(),
    z.strictObject({
      clientId: text('oauth.clientId').optional(),
      clientSecret: text('oauth.clientSecret').optional(),
      scope: text('oauth.scope').optional(),
    }),
  ])
  .default(true)
  .transform(
    (value): ServerOAuth => (typeof value === 'boolean' ? { enabled: value } : { enabled: true, ...value }),
  );

const remoteShape = {
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
  oauth: oauthSchema,
  /**
   * Sent with every request; values may use the placeholders (e.g. `X-User: {{user}}`,
   * `X-File-Provider-Token: {{fileProviderToken}}` with fileProvider). @default {}
   */
  headers: z
    .record(
      z.string().regex(HEADER_NAME, 'not a valid header name'),
      templated('a header value').refine((v) => !/[\r\n]/.test(v), 'header values must be one line'),
    )
    .default({}),
  /** @default 'url' */
  fileMode: z.enum(FILE_MODES).default('url'),
  ...commonShape,
};

const httpServerSchema = z
  .strictObject({ transport: z.literal('http'), ...remoteShape })
  .superRefine(checkProviderPlaceholders);
const sseServerSchema = z
  .strictObject({ transport: z.literal('sse'), ...remoteShape })
  .superRefine(checkProviderPlaceholders);

/** One server entry, any transport (the registry parses with the transport's own schema). */
export const serverConfigSchema = z.discriminatedUnion('transport', [
  stdioServerSchema,
  httpServerSchema,
  sseServerSchema,
]);

/** What one entry of `servers` in the config file may contain. */
export type ServerConfigInput = z.input<typeof serverConfigSchema>;

export interface ServerTimeouts {
  readonly noticeSeconds: readonly number[];
  readonly timeoutSeconds: number;
  readonly hardCapSeconds: number;
}

interface ServerConfigBase {
  /** The key under `servers`. */
  readonly name: string;
  readonly fileMode: FileMode;
  readonly timeouts: ServerTimeouts;
  readonly idleSeconds: number;
  /** `session`: opened when a session of the user opens; `call`: on first use. */
  readonly start: (typeof SERVER_STARTS)[number];
  readonly enabled: boolean;
  /** The MCP revision to speak (`auto`: negotiated). */
  readonly protocol: ProtocolChoice;
  /** As configured; `canvasOriginsOf` applies the default. */
  readonly canvasOrigins?: readonly string[];
  /** `fileProvider` normalized: `true` is `{ enabled: true, compat: false }`. */
  readonly fileProvider: ServerFileProvider;
  /** x-mcp-file data URIs carry `name=` (earlier SEP-2356 draft). */
  readonly xMcpFileNameParam: boolean;
}

/** Whether a server's connections get the user's file provider, and which surface. */
export interface ServerFileProvider {
  readonly enabled: boolean;
  /** The compatibility surface (the JSON-RPC `result` is the bare value). */
  readonly compat: boolean;
}

/**
 * A local server: one process per (server, user), started by a launcher. Its command, environment
 * and sandbox settings are the fields the sandbox's launcher reads (`SandboxServer`).
 */
export interface StdioServerConfig extends ServerConfigBase, SandboxServer {
  readonly transport: 'stdio';
}

/** A remote server over Streamable HTTP (`http`) or legacy HTTP+SSE (`sse`). */
export interface RemoteServerConfig extends ServerConfigBase {
  readonly transport: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly oauth: ServerOAuth;
}

/** `oauth` of a remote server, normalized: `true` is `{ enabled: true }`. */
export interface ServerOAuth {
  readonly enabled: boolean;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope?: string;
}

/** A validated, defaults-filled, deep-frozen server entry. */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export const SCHEMA_BY_TRANSPORT = {
  stdio: stdioServerSchema,
  http: httpServerSchema,
  sse: sseServerSchema,
} as const satisfies Record<ServerTransport, z.ZodType>;
