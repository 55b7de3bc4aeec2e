// ferry.config.json, read once at startup: the app's sections (server, auth, sessions, calls,
// uploads, maintenance, sandbox, metrics, rateLimit, redis), storage (`storage` plus the v2.1 `flags`),
// `servers` and `fileProvider`. Each part is validated by its owner (this app, @ferry/storage,
// @ferry/host: the servers and the file provider's settings); every problem of every part is
// reported at once, and the result is deep-frozen. Environment variables override the
// file. A problem is named where it is written (`ferry.config.json:12:5: servers.report.fileMod:
// unknown setting (did you mean "fileMode"?)`): unknown keys are errors at every level, the top
// included.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ENV_EXPECTED, FerryError, parseEnvFlag, parseEnvNumber } from '@ferry/contract';
import {
  type FileProviderSettings,
  fileProviderSettingsSchema,
  loadServerRegistry,
  SERVER_SCHEMA_BY_TRANSPORT,
} from '@ferry/host';
import {
  DEFAULT_DATA_DIR,
  loadStorageConfig,
  type StorageConfig,
  storageConfigSchema,
  variableFor,
} from '@ferry/storage';
import type { z } from 'zod';
import { type AppConfig, appConfigSchema, deepFreeze } from './app-config.js';
import { closestName, unknownKeyHint } from './config-hints.js';
import { findJsonSyntaxError, indexJsonSource, type JsonSource, type SourcePosition } from './json-source.js';

const DEFAULT_CONFIG_FILE = 'ferry.config.json';

const APP_SECTIONS = [
  'server',
  'auth',
  'sessions',
  'calls',
  'uploads',
  'maintenance',
  'sandbox',
  'metrics',
  'rateLimit',
  'apps',
] as const;
/** App sections whose absence means something (`redis`: the embedded default), so never filled with {}. */
const OPTIONAL_APP_SECTIONS = new Set(['redis']);
const KNOWN_SECTIONS = new Set<string>([
  ...APP_SECTIONS,
  ...OPTIONAL_APP_SECTIONS,
  'servers',
  'storage',
  'flags',
  'fileProvider',
  '$schema',
]);

export interface FerryConfig {
  /** Absolute path of the file read; undefined when none exists (all defaults). */
  readonly path: string | undefined;
  readonly app: AppConfig;
  readonly storage: StorageConfig;
  /** What `createHost({ config })` takes: the `servers` section, relative cwds resolved. */
  readonly host: { readonly servers: Readonly<Record<string, unknown>> };
  /** The `fileProvider` section (and FERRY_FILE_PROVIDER_*), defaults filled: off unless enabled. */
  readonly fileProvider: FileProviderSettings;
  /** What an operator should know but does not stop Ferry (e.g. Redis over SQLite or local blobs). */
  readonly warnings: readonly string[];
}

export interface LoadFerryConfigOptions {
  /** @default FERRY_CONFIG, else ./ferry.config.json when it exists */
  path?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Base of relative paths. @default process.cwd() */
  cwd?: string;
}

export function loadFerryConfig(options: LoadFerryConfigOptions = {}): FerryConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.path ?? nonEmpty(env.FERRY_CONFIG);
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, DEFAULT_CONFIG_FILE);
  let file: Record<string, unknown> = {};
  let source: string | undefined;
  let used: string | undefined;
  if (existsSync(path)) {
    ({ file, source } = readJson(path, shownPath(path, cwd)));
    used = path;
  } else if (explicit) {
    throw new FerryError('E_INVALID_INPUT', `Config file not found: ${path}`, { field: 'config' });
  }
  return parseFerryConfig(file, {
    env,
    cwd,
    baseDir: used ? dirname(used) : cwd,
    path: used,
    ...(source === undefined ? {} : { source }),
  });
}

/**
 * Validates an already parsed config object (the file's contents). `cwd` is where the data
 * directory lives (`./.ferry` means "where Ferry was started"); `baseDir`, the config file's
 * directory, is where local servers' relative command lines run.
 */
export function parseFerryConfig(
  file: Record<string, unknown>,
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    baseDir?: string;
    path?: string;
    /** The file's text, so that problems are named at their line and column. */
    source?: string;
  } = {},
): FerryConfig {
  const cwd = options.cwd ?? process.cwd();
  const baseDir = options.baseDir ?? cwd;
  const env = withAbsoluteDataDir(options.env ?? process.env, cwd);
  const problems: Problem[] = [];
  const note = (text: string, path?: readonly PropertyKey[]) => problems.push({ text, path });

  for (const key of Object.keys(file)) {
    if (KNOWN_SECTIONS.has(key)) continue;
    const guess = closestName(key, KNOWN_SECTIONS);
    note(`${key}: unknown section${guess ? ` (did you mean "${guess}"?)` : ''}`, [key]);
  }

  const appInput: Record<string, unknown> = Object.fromEntries(
    APP_SECTIONS.map((key) => [key, structuredClone(file[key] ?? {})]),
  );
  for (const key of OPTIONAL_APP_SECTIONS)
    if (file[key] !== undefined) appInput[key] = structuredClone(file[key]);
  const providerInput = record(file.fileProvider, 'fileProvider', note);
  const envTargets: Record<string, unknown> = { ...appInput, fileProvider: providerInput };
  applyAppEnv(envTargets, env, (text) => note(text));
  // A section a variable brought into being (FERRY_REDIS_URL) exists only in envTargets so far.
  for (const key of OPTIONAL_APP_SECTIONS) if (envTargets[key] !== undefined) appInput[key] = envTargets[key];
  const app = appConfigSchema.safeParse(appInput);
  if (!app.success) {
    for (const issue of app.error.issues)
      for (const problem of describeIssue(issue, file)) problems.push(problem);
  }
  // The host owns the provider's settings (snake_case keys, as the spec names them).
  const fileProvider = fileProviderSettingsSchema.safeParse(providerInput);
  if (!fileProvider.success) {
    for (const issue of fileProvider.error.issues)
      for (const problem of describeIssue(issue, file, PROVIDER_SECTION)) problems.push(problem);
  }

  let storage: StorageConfig | undefined;
  try {
    const storageFile = {
      ...record(file.storage, 'storage', note),
      ...record(file.flags, 'flags', note),
    };
    // An empty or non-string dataDir is left for the storage schema to name.
    if (storageFile.dataDir === undefined) storageFile.dataDir = DEFAULT_DATA_DIR;
    if (typeof storageFile.dataDir === 'string' && storageFile.dataDir !== '') {
      storageFile.dataDir = resolve(cwd, storageFile.dataDir);
    }
    storage = loadStorageConfig({ file: storageFile, env });
  } catch (error) {
    const found = storageProblems(error, file);
    if (found) problems.push(...found);
    else note((error as Error).message);
  }

  const servers = withDefaultCwd(record(file.servers, 'servers', note), baseDir);
  try {
    loadServerRegistry({ servers });
  } catch (error) {
    const found = serverProblems(error, servers);
    if (found) problems.push(...found);
    else note((error as Error).message);
  }

  const warnings: string[] = [];
  if (app.success && app.data.redis && storage) checkScaleMode(storage, note, warnings);

  if (problems.length > 0 || !app.success || !fileProvider.success || !storage) {
    const where = options.path ? ` (${options.path})` : '';
    const lines = formatProblems(
      problems,
      options.source,
      options.path ? shownPath(options.path, cwd) : undefined,
    );
    throw new FerryError('E_INVALID_INPUT', `Invalid Ferry configuration${where}:\n  ${lines.join('\n  ')}`, {
      field: 'config',
      problems: lines,
    });
  }
  return deepFreeze({
    path: options.path,
    app: app.data,
    storage,
    host: { servers },
    fileProvider: fileProvider.data,
    warnings,
  });
}

/**
 * Redis makes this one of several instances: what a single instance may keep to itself must be
 * shared too. A per-process token key is refused (a download link signed by one instance would
 * fail on the next); SQLite and local blobs only warn, since one instance over Redis still works
 * (tests, a staged migration), but N instances would each see their own files.
 */
function checkScaleMode(
  storage: StorageConfig,
  note: (text: string, path?: readonly PropertyKey[]) => void,
  warnings: string[],
): void {
  if (storage.tokens.keys.length === 0) {
    note(
      'redis (FERRY_REDIS_URL): instances sharing state through Redis need a token key shared by every instance, so each accepts the download links the others sign: set FERRY_TOKEN_SECRET to the same random secret of at least 32 bytes on every instance (for example the output of `openssl rand -hex 32`), or list the keys in storage.tokens.keys',
      ['redis'],
    );
  }
  const local = [
    ...(storage.catalog.driver === 'sqlite' ? ['the catalog is SQLite (set FERRY_DATABASE_URL)'] : []),
    ...(storage.blob.driver === 'local' ? ['blobs are on local disk (set FERRY_S3_BUCKET)'] : []),
  ];
  if (local.length > 0) {
    warnings.push(
      `Redis is configured but ${local.join(' and ')}: N instances need PostgreSQL and S3, or each sees only its own files`,
    );
  }
}

/** One problem: its text, and the path of the key it is about in the file (when it is there). */
interface Problem {
  text: string;
  path?: readonly PropertyKey[] | undefined;
}

/** `file:line:column: text` for the problems whose key is in the file; the others as they are. */
function formatProblems(
  problems: readonly Problem[],
  source: string | undefined,
  file: string | undefined,
): string[] {
  const index: JsonSource | undefined = source === undefined ? undefined : indexJsonSource(source);
  const placed = problems.map(({ text, path }) => ({ text, at: path && index?.locate(path) }));
  // In the order of the file, as an editor lists them; what is not in the file (variables) last.
  const order = (at: SourcePosition | undefined) =>
    at ? at.line * 1e6 + at.column : Number.POSITIVE_INFINITY;
  placed.sort((a, b) => order(a.at) - order(b.at));
  return placed.map(({ text, at }) => (at && file ? `${file}:${at.line}:${at.column}: ${text}` : text));
}

const FLAG_KEYS = new Set([
  'persist_files_across_sessions',
  'base64_size_limit_mb',
  'max_file_size_mb',
  'user_quota_mb',
  'deferred_expires_hours',
]);

/** @ferry/storage's problems (fields of `storage` and `flags` merged), placed back in their section. */
function storageProblems(error: unknown, file: Record<string, unknown>): Problem[] | undefined {
  const found = error instanceof FerryError ? error.details?.problems : undefined;
  if (!Array.isArray(found)) return undefined;
  const flags = isRecord(file.flags) ? file.flags : {};
  return (found as { field: string; variable?: string; message: string }[]).map((p) => {
    const fieldPath = p.field === '(root)' ? [] : p.field.split('.');
    const head = fieldPath[0];
    const section =
      head !== undefined && (head in flags || (FLAG_KEYS.has(head) && !isRecord(file.storage)))
        ? 'flags'
        : 'storage';
    const dotted = [section, ...fieldPath].join('.');
    if (p.variable !== undefined) return { text: `${p.variable} (${dotted}): ${p.message}` };
    const variable = variableFor(p.field);
    const hint = unknownKeyHint(storageConfigSchema, fieldPath);
    return {
      text: `${dotted}: ${p.message}${hint}${variable === undefined || p.message.includes(variable) ? '' : ` (or set ${variable})`}`,
      path: [section, ...fieldPath],
    };
  });
}

/** @ferry/host's problems with the `servers` section, each at its server's key. */
function serverProblems(error: unknown, servers: Record<string, unknown>): Problem[] | undefined {
  const found = error instanceof FerryError ? error.details?.problems : undefined;
  if (!Array.isArray(found)) return undefined;
  return (found as { server: string; field: string; message: string }[]).map((p) => {
    if (p.server === '') return { text: `servers: ${p.message}`, path: ['servers'] };
    const fieldPath = p.field === '(root)' || p.field === '(name)' ? [] : p.field.split('.');
    const entry = servers[p.server];
    const transport = isRecord(entry) ? entry.transport : undefined;
    const schema =
      transport === 'stdio' || transport === 'http' || transport === 'sse'
        ? SERVER_SCHEMA_BY_TRANSPORT[transport]
        : undefined;
    const hint = schema && fieldPath.length > 0 ? unknownKeyHint(schema, fieldPath) : '';
    const dotted = ['servers', p.server, ...fieldPath].join('.');
    return { text: `${dotted}: ${p.message}${hint}`, path: ['servers', p.server, ...fieldPath] };
  });
}

// Each variable sets one field; the file's value stays when a variable is unset or empty. A list
// is comma-separated (as FERRY_TRUSTED_PROXIES).
const APP_ENV: readonly [string, string, string, 'string' | 'number' | 'flag' | 'list'][] = [
  ['FERRY_HOST', 'server', 'host', 'string'],
  ['FERRY_PORT', 'server', 'port', 'number'],
  ['FERRY_PUBLIC_URL', 'server', 'publicUrl', 'string'],
  ['FERRY_BODY_IDLE_TIMEOUT_MS', 'server', 'bodyIdleTimeoutMs', 'number'],
  ['FERRY_SHUTDOWN_GRACE_SECONDS', 'server', 'shutdownGraceSeconds', 'number'],
  ['FERRY_AUTH_MODE', 'auth', 'mode', 'string'],
  ['FERRY_AUTH_USER', 'auth', 'user', 'string'],
  ['FERRY_AUTH_HEADER', 'auth', 'header', 'string'],
  ['FERRY_TRUSTED_PROXIES', 'auth', 'trustedProxies', 'list'],
  ['FERRY_PROXY_SECRET', 'auth', 'proxySecret', 'string'],
  ['FERRY_PROXY_SECRET_HEADER', 'auth', 'proxySecretHeader', 'string'],
  ['FERRY_SESSION_IDLE_MINUTES', 'sessions', 'idleMinutes', 'number'],
  ['FERRY_FILE_SWEEP_MINUTES', 'maintenance', 'fileSweepMinutes', 'number'],
  ['FERRY_SANDBOX', 'sandbox', 'mode', 'string'],
  ['FERRY_METRICS_ALLOW_FROM', 'metrics', 'allowFrom', 'list'],
  ['FERRY_METRICS_TOKEN', 'metrics', 'token', 'string'],
  ['FERRY_RATE_LIMIT', 'rateLimit', 'enabled', 'flag'],
  ['FERRY_APPS_SANDBOX_PORT', 'apps', 'sandboxPort', 'number'],
  ['FERRY_APPS_SANDBOX_URL', 'apps', 'sandboxPublicUrl', 'string'],
  ['FERRY_REDIS_URL', 'redis', 'url', 'string'],
  ['FERRY_REDIS_PREFIX', 'redis', 'prefix', 'string'],
  ['FERRY_FILE_PROVIDER_ENABLED', 'fileProvider', 'enabled', 'flag'],
  ['FERRY_FILE_PROVIDER_MAX_FILE_SIZE', 'fileProvider', 'max_file_size', 'number'],
  ['FERRY_FILE_PROVIDER_TIMEOUT_SECONDS', 'fileProvider', 'timeout_seconds', 'number'],
  ['FERRY_FILE_PROVIDER_ALLOWED_PATHS', 'fileProvider', 'allowed_paths', 'list'],
  ['FERRY_FILE_PROVIDER_BLOCKED_PATHS', 'fileProvider', 'blocked_paths', 'list'],
  ['FERRY_FILE_PROVIDER_OPTIONAL_TOOLS', 'fileProvider', 'enable_optional_tools', 'flag'],
];

function applyAppEnv(
  input: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  problem: (text: string) => void,
): void {
  for (const [variable, section, field, kind] of APP_ENV) {
    const text = nonEmpty(env[variable]);
    if (text === undefined) continue;
    // A variable of an optional section (FERRY_REDIS_URL) brings the section into being.
    if (input[section] === undefined && OPTIONAL_APP_SECTIONS.has(section)) input[section] = {};
    const target = input[section] as Record<string, unknown>;
    if (typeof target !== 'object' || target === null) continue;
    if (kind === 'number') {
      const number = parseEnvNumber(text);
      if (number === undefined) {
        problem(`${variable} (${section}.${field}): expected ${ENV_EXPECTED.number}, got "${text}"`);
        continue;
      }
      target[field] = number;
    } else if (kind === 'flag') {
      const flag = parseEnvFlag(text);
      if (flag === undefined) {
        problem(`${variable} (${section}.${field}): expected ${ENV_EXPECTED.flag}, got "${text}"`);
        continue;
      }
      target[field] = flag;
    } else if (kind === 'list') {
      target[field] = text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    } else {
      target[field] = text;
    }
  }
}

/**
 * The example servers run `examples/servers/dist/report.js`: relative paths in a local server's
 * command line mean "next to the config file", wherever Ferry is started from.
 */
function withDefaultCwd(servers: Record<string, unknown>, baseDir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const server = entry as Record<string, unknown>;
      if (server.transport === 'stdio') {
        const cwd = typeof server.cwd === 'string' ? server.cwd : undefined;
        out[name] = {
          ...server,
          cwd: cwd === undefined || !isAbsolute(cwd) ? resolve(baseDir, cwd ?? '.') : cwd,
        };
        continue;
      }
    }
    out[name] = entry;
  }
  return out;
}

function withAbsoluteDataDir(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const dataDir = nonEmpty(env.FERRY_DATA_DIR);
  return dataDir === undefined || isAbsolute(dataDir)
    ? env
    : { ...env, FERRY_DATA_DIR: resolve(cwd, dataDir) };
}

/** The file parsed, and its text; a syntax error is named at its line and column, the line shown. */
function readJson(path: string, shown: string): { file: Record<string, unknown>; source: string } {
  let source: string;
  try {
    // An editor's byte order mark is not part of the JSON.
    source = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new FerryError('E_INVALID_INPUT', `Cannot read ${path}: ${(error as Error).message}`, {
      field: 'config',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    // V8's own message gives an offset at best and quotes the text (secrets included) at worst.
    const found = findJsonSyntaxError(source);
    const message = found
      ? `${shown}:${found.line}:${found.column}: invalid JSON: ${found.message}\n${found.excerpt}`
      : `${shown}: invalid JSON (${(error as Error).message.replace(/,? ".*$/s, '')})`;
    throw new FerryError('E_INVALID_INPUT', message, {
      field: 'config',
      ...(found ? { line: found.line, column: found.column } : {}),
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new FerryError('E_INVALID_INPUT', `${path}: the config must be a JSON object`, { field: 'config' });
  }
  return { file: parsed as Record<string, unknown>, source };
}

function record(value: unknown, section: string, problem: (text: string, path?: PropertyKey[]) => void) {
  if (value === undefined) return {};
  if (isRecord(value)) return structuredClone(value) as Record<string, unknown>;
  problem(`${section}: must be an object`, [section]);
  return {};
}

/** A part of the file validated by a schema of its own: the schema, and where it sits in the file. */
interface Section {
  schema: z.core.$ZodType;
  at: readonly PropertyKey[];
}

const APP_SECTION: Section = { schema: appConfigSchema, at: [] };
const PROVIDER_SECTION: Section = { schema: fileProviderSettingsSchema, at: ['fileProvider'] };

function describeIssue(
  issue: z.core.$ZodIssue,
  file: Record<string, unknown>,
  section: Section = APP_SECTION,
): Problem[] {
  const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const inSection = [...issue.path, key];
      const path = [...section.at, ...inSection];
      const value = valueAt(file, path);
      // `"server": { "report": { "transport": … } }`: an MCP server under the HTTP server's section.
      const misplaced =
        path.length === 2 &&
        path[0] === 'server' &&
        isRecord(value) &&
        ('transport' in value || 'command' in value || 'url' in value);
      const hint = misplaced
        ? ' (MCP servers go under "servers": did you mean "servers"?)'
        : unknownKeyHint(section.schema, inSection);
      return { text: `${dotted(path)}: unknown setting${hint}`, path };
    });
  }
  const path = [...section.at, ...issue.path];
  return [{ text: `${dotted(path) || '(root)'}: ${issue.message}`, path }];
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path)
    node = isRecord(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A path as the user typed it: relative to the directory Ferry was started in when inside it. */
function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
