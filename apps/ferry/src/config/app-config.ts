import { isIP } from 'node:net';
import { isValidUsername, SANDBOX_MODES } from '@ferry/contract';
import { z } from 'zod';

// The sections of ferry.config that belong to the HTTP app: where it listens, who the user is,
// how long sessions and finished calls live. Each section is strict, so a typo such as
// `trustedProxy` fails at startup instead of silently trusting nobody (or everybody).

// RFC 9110 `token`: what a header name may contain.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const positive = (what: string) => z.number().finite().positive(`${what} must be greater than 0`);
const count = (what: string) => z.number().int(`${what} must be an integer`).min(1, `${what} must be >= 1`);

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`). */
const addressOrBlock = z.string().refine((value) => {
  const [address, bits, ...rest] = value.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const prefix = Number(bits);
  return /^\d{1,3}$/.test(bits) && prefix <= (family === 4 ? 32 : 128);
}, 'must be an IP address or a CIDR block such as 10.0.0.0/8');

const serverSectionSchema = z.strictObject({
  /** @default '127.0.0.1' (loopback: the embedded default has a single local user) */
  host: z.string().min(1, 'server.host must not be empty').default('127.0.0.1'),
  /** 0 picks a free port. @default 8787 */
  port: z.number().int('server.port must be an integer').min(0).max(65_535).default(8787),
  /**
   * The base URL tools fetch files from in `url` file mode (a remote server must be able to reach
   * it). @default the address Ferry listens on
   */
  publicUrl: z.url({ protocol: /^https?$/, error: 'server.publicUrl must be an http(s) URL' }).optional(),
  /**
   * A request whose body receives no byte for this long is cut off (408). Not a limit on the
   * whole request: a slow but steady upload takes as long as it needs, and responses (event
   * streams, long calls) are not affected. @default 30000
   */
  bodyIdleTimeoutMs: z
    .number()
    .int('server.bodyIdleTimeoutMs must be an integer')
    .positive('server.bodyIdleTimeoutMs must be greater than 0')
    .default(30_000),
  /**
   * How long a stop (SIGTERM, Ctrl-C) drains before it cancels what still runs: /readyz answers
   * 503, new calls and uploads are refused, running ones may finish (docs/operations.md). 0 stops
   * at once. @default 30
   */
  shutdownGraceSeconds: z
    .number()
    .int('server.shutdownGraceSeconds must be an integer')
    .min(0, 'server.shutdownGraceSeconds must be 0 or more')
    .max(3600, 'server.shutdownGraceSeconds must be at most 3600')
    .default(30),
});

/** Where proxy mode's shared secret may come from instead of the config file. */
const PROXY_SECRET_ENV = 'FERRY_PROXY_SECRET';
const MIN_PROXY_SECRET_LENGTH = 16;

const authSectionSchema = z
  .strictObject({
    /** `local`: everyone is `user`; `proxy`: a trusted reverse proxy names the user. @default 'local' */
    mode: z.enum(['local', 'proxy']).default('local'),
    /** The single user of local mode. @default 'dev' */
    user: z.string().refine(isValidUsername, 'auth.user is not a valid username').default('dev'),
    /** The header the proxy sets (proxy mode). @default 'x-forwarded-user' */
    header: z
      .string()
      .regex(HEADER_NAME, 'auth.header is not a valid header name')
      .transform((name) => name.toLowerCase())
      .default('x-forwarded-user'),
    /** Peers whose header is believed (proxy mode); anyone else gets 401. @default loopback only */
    trustedProxies: z.array(addressOrBlock).default(['127.0.0.1', '::1']),
    /**
     * The secret the proxy adds to every request it forwards, in `proxySecretHeader`: required in
     * proxy mode, since a trusted address alone proves nothing (a tool with network access reaches
     * loopback too). Also FERRY_PROXY_SECRET. Never logged, never shown.
     */
    proxySecret: z
      .string()
      .min(MIN_PROXY_SECRET_LENGTH, `auth.proxySecret must be at least ${MIN_PROXY_SECRET_LENGTH} characters`)
      // A header value loses leading and trailing spaces on the way; visible ASCII arrives intact.
      .regex(/^[\x21-\x7e]+$/, 'auth.proxySecret must be visible ASCII characters, without spaces')
      .optional(),
    /** The header carrying `proxySecret` (proxy mode). @default 'x-ferry-proxy-secret' */
    proxySecretHeader: z
      .string()
      .regex(HEADER_NAME, 'auth.proxySecretHeader is not a valid header name')
      .transform((name) => name.toLowerCase())
      .default('x-ferry-proxy-secret'),
    /** Users who may delete other users (DELETE /api/users/{username}); anyone may delete themself. */
    admins: z.array(z.string().refine(isValidUsername, 'auth.admins holds an invalid username')).default([]),
  })
  .superRefine((auth, context) => {
    if (auth.mode !== 'proxy') return;
    if (auth.proxySecret === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['proxySecret'],
        message: `proxy mode requires auth.proxySecret (or the ${PROXY_SECRET_ENV} environment variable): the shared secret the proxy sends in ${auth.proxySecretHeader}`,
      });
    }
    if (auth.proxySecretHeader === auth.header) {
      context.addIssue({
        code: 'custom',
        path: ['proxySecretHeader'],
        message: 'auth.proxySecretHeader must differ from auth.header',
      });
    }
  });

const sessionsSectionSchema = z.strictObject({
  /** A session unused this long ends, and its session-only files go. @default 240 */
  idleMinutes: positive('sessions.idleMinutes').default(240),
});

const callsSectionSchema = z.strictObject({
  /** Events kept per call for replay (oldest progress events go first). @default 1000 */
  maxEventsPerCall: count('calls.maxEventsPerCall').default(1000),
  /** How long a finished call's events and outcome stay fetchable. @default 60 */
  keepFinishedMinutes: positive('calls.keepFinishedMinutes').default(60),
  /** Finished calls kept in memory at most (oldest dropped first). @default 1000 */
  maxKeptCalls: count('calls.maxKeptCalls').default(1000),
  /** Calls one user may have running at once; more get 429. @default 8 */
  maxRunningPerUser: count('calls.maxRunningPerUser').default(8),
  /**
   * The largest tool result Ferry reads (one JSON-RPC message); a bigger one fails its call with
   * E_RESULT_TOO_LARGE naming this limit. Files belong in artifacts with a path, not inline.
   * @default 67108864 (64 MiB)
   */
  maxResultBytes: count('calls.maxResultBytes').optional(),
  /**
   * Local MCP servers starting at once (per Ferry); more wait their turn, their connect timeout
   * starting with it. @default the machine's CPU count (os.availableParallelism())
   */
  maxConcurrentStarts: count('calls.maxConcurrentStarts').optional(),
  /**
   * How Ferry finds the files a tool wrote into the workspace during a call: 'watch' keeps a
   * change tracker (inotify) per workspace and walks when it cannot trust it; 'walk' lists the
   * workspace before and after every call. @default 'watch'
   */
  workspaceDetection: z
    .enum(['watch', 'walk'], { error: "calls.workspaceDetection must be 'watch' or 'walk'" })
    .default('watch'),
});

const uploadsSectionSchema = z.strictObject({
  /** Files one multipart request may carry. @default 100 */
  maxFilesPerRequest: count('uploads.maxFilesPerRequest').default(100),
});

const maintenanceSectionSchema = z.strictObject({
  /**
   * How often the space of expired files, crash leftovers and broken-off uploads is reclaimed.
   * Expiry does not wait for it: an expired file is gone from every read the moment it expires.
   * At most a week. @default 15
   */
  fileSweepMinutes: positive('maintenance.fileSweepMinutes')
    .max(10_080, 'maintenance.fileSweepMinutes must be at most 10080 (a week)')
    .default(15),
});

/** The bearer token of GET /metrics may also come from this variable (never logged, never shown). */
const METRICS_TOKEN_ENV = 'FERRY_METRICS_TOKEN';
const MIN_METRICS_TOKEN_LENGTH = 16;

const metricsSectionSchema = z.strictObject({
  /**
   * Peers that may read GET /metrics without the token: addresses or CIDR blocks. A request a
   * proxy forwarded (it carries Forwarded, X-Forwarded-For or the proxy's secret header) never
   * counts as one of them, whatever its peer address: behind a proxy on loopback, every user
   * would otherwise come from 127.0.0.1. [] allows nobody by address. @default loopback only
   */
  allowFrom: z.array(addressOrBlock).default(['127.0.0.1', '::1']),
  /**
   * A bearer token that opens GET /metrics from anywhere (`Authorization: Bearer <token>`), for a
   * Prometheus on another machine. Also FERRY_METRICS_TOKEN. @default none: by address only
   */
  token: z
    .string()
    .min(
      MIN_METRICS_TOKEN_LENGTH,
      `metrics.token (or ${METRICS_TOKEN_ENV}) must be at least ${MIN_METRICS_TOKEN_LENGTH} characters`,
    )
    .regex(/^[\x21-\x7e]+$/, 'metrics.token must be visible ASCII characters, without spaces')
    .optional(),
});

/**
 * Scale mode: Ferry instances behind one load balancer share their state (calls, events, sessions)
 * through this Redis. Absent: the embedded default, one instance, everything in memory. Each
 * instance needs the same `url` and `prefix`, a PostgreSQL catalog, S3 blobs and a shared token key.
 */
const redisSectionSchema = z.strictObject({
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Also FERRY_REDIS_URL. */
  url: z
    .url({ protocol: /^rediss?$/, error: 'redis.url must be a redis:// or rediss:// URL (FERRY_REDIS_URL)' })
    .refine((url) => new URL(url).hostname !== '', 'redis.url must name a host'),
  /**
   * Every key and channel Ferry uses starts with it, so several Ferry deployments (or tests) can
   * share one Redis. Also FERRY_REDIS_PREFIX. @default 'ferry:'
   */
  prefix: z
    .string()
    .regex(/^[\x21-\x7e]{1,64}$/, 'redis.prefix must be 1 to 64 visible ASCII characters, without spaces')
    .default('ferry:'),
  /**
   * How often an instance says it is alive; it counts as gone 3 heartbeats after its last one, and
   * its running calls are then failed by the others. @default 5000
   */
  heartbeatMs: z.number().int('redis.heartbeatMs must be an integer').min(50).max(60_000).default(5_000),
  /** How long one instance waits for another's answer (cancel, elicitation answer). @default 10000 */
  requestTimeoutMs: z
    .number()
    .int('redis.requestTimeoutMs must be an integer')
    .min(100)
    .max(120_000)
    .default(10_000),
});

const limit = (what: string) =>
  z
    .number()
    .int(`${what} must be an integer`)
    .positive(`${what} must be greater than 0`)
    .nullable()
    .optional();

/** Resource limits of a sandboxed server (packages/sandbox/src/sandbox-limits.ts); null: off. */
const sandboxLimitsSchema = z.strictObject({
  memoryBytes: limit('sandbox.limits.memoryBytes'),
  cpuSeconds: limit('sandbox.limits.cpuSeconds'),
  openFiles: limit('sandbox.limits.openFiles'),
  processes: limit('sandbox.limits.processes'),
  fileSizeBytes: limit('sandbox.limits.fileSizeBytes'),
  workspaceBytes: limit('sandbox.limits.workspaceBytes'),
  tmpBytes: limit('sandbox.limits.tmpBytes'),
  quotaCheckMs: count('sandbox.limits.quotaCheckMs').optional(),
});

const absolutePath = (what: string) =>
  z.string().refine((path) => path.startsWith('/'), `${what} must be an absolute path`);

/** A path, or { path, writable }. */
const sandboxBindSchema = z.union([
  absolutePath('sandbox.binds entries'),
  z.strictObject({ path: absolutePath('sandbox.binds path'), writable: z.boolean().default(false) }),
]);

const sandboxSectionSchema = z.strictObject({
  /**
   * Floor for every local server (a server's own `sandbox` may only make it stricter):
   * `required` refuses to start a local server without bubblewrap; `auto` runs it unsandboxed
   * with a warning; `off` never sandboxes. @default 'auto'
   */
  mode: z.enum(SANDBOX_MODES).default('auto'),
  /** false: no local server gets the network, whatever its own `network` says. @default true */
  network: z.boolean().default(true),
  /** Host paths tools must not see, on top of Ferry's data directory and config file. */
  hide: z
    .array(z.string().refine((path) => path.startsWith('/'), 'sandbox.hide entries must be absolute paths'))
    .default([]),
  /** bubblewrap's executable. @default 'bwrap' in PATH */
  bwrapPath: z
    .string()
    .refine((path) => path.startsWith('/'), 'sandbox.bwrapPath must be an absolute path')
    .optional(),
  /** For every local server; per server under `limitsByServer`. */
  limits: sandboxLimitsSchema.default({}),
  limitsByServer: z.record(z.string(), sandboxLimitsSchema).default({}),
  /**
   * Extra host paths a sandboxed server sees at the same place, read-only unless `writable`: for
   * every server, and per server under `bindsByServer`.
   */
  binds: z.array(sandboxBindSchema).default([]),
  bindsByServer: z.record(z.string(), z.array(sandboxBindSchema)).default({}),
  /**
   * Whether a server's own `"sandbox": "off"` is honoured: true, or the names of the servers that
   * may run unsandboxed. Otherwise such a server runs sandboxed, with a warning. @default false
   */
  allowServerOff: z.union([z.boolean(), z.array(z.string())]).default(false),
  /**
   * The host user sandboxed tools run as when Ferry runs as root: a user name or "uid:gid", never
   * root. @default the system user `ferry-sandbox` (created when missing), else nobody
   */
  runAs: z
    .string()
    .refine(
      (value) => value !== 'root' && !/^0:|:0$/.test(value),
      'sandbox.runAs must not be root (uid or gid 0)',
    )
    .optional(),
});

/**
 * MCP Apps (docs/mcp-apps.md): the second origin the web app loads an app's sandbox proxy from.
 * It must differ from Ferry's own origin, so an app never shares Ferry's storage or DOM.
 */
const appsSectionSchema = z.strictObject({
  /**
   * The port of the sandbox origin's listener, on server.host. Set it when the sandbox origin is
   * published (a firewall, a reverse proxy). Also FERRY_APPS_SANDBOX_PORT. @default 0: a free port
   * at each start (a fixed neighbour of server.port could be another instance's port)
   */
  sandboxPort: z.number().int('apps.sandboxPort must be an integer').min(0).max(65_535).optional(),
  /**
   * The sandbox origin as the browser reaches it (behind a proxy: its own host name). Also
   * FERRY_APPS_SANDBOX_URL. @default the address the sandbox listener listens on
   */
  sandboxPublicUrl: z
    .url({ protocol: /^https?$/, error: 'apps.sandboxPublicUrl must be an http(s) URL' })
    .optional(),
});

/** One per-user limit: at most `max` requests in `windowSeconds`. */
const rateRuleSchema = (what: string, max: number, windowSeconds: number) =>
  z
    .strictObject({
      max: count(`${what}.max`).default(max),
      windowSeconds: count(`${what}.windowSeconds`)
        .max(86_400, `${what}.windowSeconds must be at most 86400 (a day)`)
        .default(windowSeconds),
    })
    .prefault({});

/**
 * Per-user request limits (http/rate-limit.ts): each counts one user's requests in a fixed window,
 * in Redis when instances share state (one limit across all of them), else in memory. A request
 * over a limit gets 429 E_RATE_LIMITED with Retry-After. Off unless enabled: the embedded default
 * serves one person, and a deployment sizes the limits to its users and clients.
 */
const rateLimitSectionSchema = z.strictObject({
  /** @default false */
  enabled: z.boolean().default(false),
  /** POST /api/calls (starting a tool call). @default 60 per 60 s */
  callStarts: rateRuleSchema('rateLimit.callStarts', 60, 60),
  /** POST /api/files (an upload request, however many files it carries). @default 120 per 60 s */
  uploads: rateRuleSchema('rateLimit.uploads', 120, 60),
  /** Every other authenticated /api request (event streams count once, when opened). @default 1200 per 60 s */
  api: rateRuleSchema('rateLimit.api', 1200, 60),
  /** Users never limited (service accounts, load tests). @default none */
  exemptUsers: z
    .array(z.string().refine(isValidUsername, 'rateLimit.exemptUsers holds an invalid username'))
    .default([]),
});

export const appConfigSchema = z.strictObject({
  server: serverSectionSchema.prefault({}),
  auth: authSectionSchema.prefault({}),
  sessions: sessionsSectionSchema.prefault({}),
  calls: callsSectionSchema.prefault({}),
  uploads: uploadsSectionSchema.prefault({}),
  maintenance: maintenanceSectionSchema.prefault({}),
  sandbox: sandboxSectionSchema.prefault({}),
  metrics: metricsSectionSchema.prefault({}),
  rateLimit: rateLimitSectionSchema.prefault({}),
  apps: appsSectionSchema.prefault({}),
  /** Absent: the embedded default (one instance, state in memory). */
  redis: redisSectionSchema.optional(),
});

export type AppConfigInput = z.input<typeof appConfigSchema>;
/** The app's part of the config: validated, defaults filled, deep-frozen. */
export type AppConfig = z.output<typeof appConfigSchema>;
export type AuthConfig = AppConfig['auth'];
export type CallsConfig = AppConfig['calls'];
export type MetricsConfig = AppConfig['metrics'];
export type RateLimitConfig = AppConfig['rateLimit'];
/** Present only in scale mode (FERRY_REDIS_URL). */
export type RedisConfig = NonNullable<AppConfig['redis']>;

/** The app's defaults, for tests and tools that build an app without a config file. */
export function defaultAppConfig(overrides: AppConfigInput = {}): AppConfig {
  return deepFreeze(appConfigSchema.parse(overrides));
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
