import { hasOnlyUserPlaceholders, SANDBOX_MODES, TIMEOUT_NOTICES, TIMEOUT_SECONDS } from '@ferry/contract';
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
  noNul(what).refine(hasOnlyUserPlaceholders, `${what}: the only placeholder allowed is {{user}}`);

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

const commonShape = {
  canvasOrigins: canvasOriginsSchema.optional(),
  timeouts: timeoutsSchema.prefault({}),
  /** A connection with no call for this long is closed (and a local process stopped). @default 600 */
  idleSeconds: seconds('idleSeconds').default(600),
  /** A disabled server stays listed but cannot be connected to. @default true */
  enabled: z.boolean().default(true),
};

const stdioServerSchema = z.strictObject({
  transport: z.literal('stdio'),
  command: text('command').pipe(noNul('command')),
  /** Arguments; `{{user}}` is replaced by the username. @default [] */
  args: z.array(templated('an argument')).default([]),
  /**
   * The only variables the process gets besides a small allowlist (PATH, HOME, LANG, …);
   * values may use `{{user}}`. @default {}
   */
  env: z
    .record(z.string().regex(ENV_NAME, 'env names must be letters, digits and _'), templated('an env value'))
    .default({}),
  cwd: text('cwd').optional(),
  /** @default 'path' */
  fileMode: z.enum(FILE_MODES).default('path'),
  /** @default 'auto' */
  sandbox: z.enum(SANDBOX_MODES).default('auto'),
  /** Whether the sandboxed process may use the network. @default false */
  network: z.boolean().default(false),
  ...commonShape,
});

const remoteShape = {
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
  /** Sent with every request; values may use `{{user}}` (e.g. `X-User: {{user}}`). @default {} */
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

const httpServerSchema = z.strictObject({ transport: z.literal('http'), ...remoteShape });
const sseServerSchema = z.strictObject({ transport: z.literal('sse'), ...remoteShape });

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
  readonly enabled: boolean;
  /** As configured; `canvasOriginsOf` applies the default. */
  readonly canvasOrigins?: readonly string[];
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
}

/** A validated, defaults-filled, deep-frozen server entry. */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export const SCHEMA_BY_TRANSPORT = {
  stdio: stdioServerSchema,
  http: httpServerSchema,
  sse: sseServerSchema,
} as const satisfies Record<ServerTransport, z.ZodType>;
