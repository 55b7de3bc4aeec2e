// ferry.config.json, read once at startup: the app's sections (server, auth, sessions, calls,
// uploads, sandbox), storage (`storage` plus the v2.1 `flags`) and `servers`. Each part is validated by its
// owner (this app, @ferry/storage, @ferry/host); every problem of every part is reported at once,
// and the result is deep-frozen. Environment variables override the file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { FerryError } from '@ferry/contract';
import { loadServerRegistry } from '@ferry/host';
import { loadStorageConfig, type StorageConfig } from '@ferry/storage';
import type { z } from 'zod';
import { type AppConfig, appConfigSchema, deepFreeze } from './app-config.js';

export const DEFAULT_CONFIG_FILE = 'ferry.config.json';
/** The storage package's default, resolved against the directory Ferry starts in. */
const DEFAULT_DATA_DIR = './.ferry';

const APP_SECTIONS = ['server', 'auth', 'sessions', 'calls', 'uploads', 'sandbox'] as const;
const KNOWN_SECTIONS = new Set<string>([...APP_SECTIONS, 'servers', 'storage', 'flags', '$schema']);

export interface FerryConfig {
  /** Absolute path of the file read; undefined when none exists (all defaults). */
  readonly path: string | undefined;
  readonly app: AppConfig;
  readonly storage: StorageConfig;
  /** What `createHost({ config })` takes: the `servers` section, relative cwds resolved. */
  readonly host: { readonly servers: Readonly<Record<string, unknown>> };
  /** Sections nobody reads (a typo or a newer Ferry's setting). */
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
  let used: string | undefined;
  if (existsSync(path)) {
    file = readJson(path);
    used = path;
  } else if (explicit) {
    throw new FerryError('E_INVALID_INPUT', `Config file not found: ${path}`, { field: 'config' });
  }
  return parseFerryConfig(file, { env, cwd, baseDir: used ? dirname(used) : cwd, path: used });
}

/**
 * Validates an already parsed config object (the file's contents). `cwd` is where the data
 * directory lives (`./.ferry` means "where Ferry was started"); `baseDir`, the config file's
 * directory, is where local servers' relative command lines run.
 */
export function parseFerryConfig(
  file: Record<string, unknown>,
  options: { env?: NodeJS.ProcessEnv; cwd?: string; baseDir?: string; path?: string } = {},
): FerryConfig {
  const cwd = options.cwd ?? process.cwd();
  const baseDir = options.baseDir ?? cwd;
  const env = withAbsoluteDataDir(options.env ?? process.env, cwd);
  const problems: string[] = [];

  const appInput = Object.fromEntries(APP_SECTIONS.map((key) => [key, structuredClone(file[key] ?? {})]));
  applyAppEnv(appInput, env, problems);
  const app = appConfigSchema.safeParse(appInput);
  if (!app.success) problems.push(...app.error.issues.map(describeIssue));

  let storage: StorageConfig | undefined;
  try {
    const storageFile = {
      ...record(file.storage, 'storage', problems),
      ...record(file.flags, 'flags', problems),
    };
    // An empty or non-string dataDir is left for the storage schema to name.
    if (storageFile.dataDir === undefined) storageFile.dataDir = DEFAULT_DATA_DIR;
    if (typeof storageFile.dataDir === 'string' && storageFile.dataDir !== '') {
      storageFile.dataDir = resolve(cwd, storageFile.dataDir);
    }
    storage = loadStorageConfig({ file: storageFile, env });
  } catch (error) {
    problems.push((error as Error).message);
  }

  const servers = withDefaultCwd(record(file.servers, 'servers', problems), baseDir);
  try {
    loadServerRegistry({ servers });
  } catch (error) {
    problems.push((error as Error).message);
  }

  if (problems.length > 0 || !app.success || !storage) {
    const where = options.path ? ` (${options.path})` : '';
    throw new FerryError(
      'E_INVALID_INPUT',
      `Invalid Ferry configuration${where}:\n  ${problems.join('\n  ')}`,
      {
        field: 'config',
        problems,
      },
    );
  }
  const warnings = Object.keys(file)
    .filter((key) => !KNOWN_SECTIONS.has(key))
    .map((key) => `ferry.config: unknown section "${key}" is ignored`);
  return deepFreeze({ path: options.path, app: app.data, storage, host: { servers }, warnings });
}

// Each variable sets one field; the file's value stays when a variable is unset or empty.
const APP_ENV: readonly [string, string, string, 'string' | 'number' | 'list'][] = [
  ['FERRY_HOST', 'server', 'host', 'string'],
  ['FERRY_PORT', 'server', 'port', 'number'],
  ['FERRY_PUBLIC_URL', 'server', 'publicUrl', 'string'],
  ['FERRY_BODY_IDLE_TIMEOUT_MS', 'server', 'bodyIdleTimeoutMs', 'number'],
  ['FERRY_AUTH_MODE', 'auth', 'mode', 'string'],
  ['FERRY_AUTH_USER', 'auth', 'user', 'string'],
  ['FERRY_AUTH_HEADER', 'auth', 'header', 'string'],
  ['FERRY_TRUSTED_PROXIES', 'auth', 'trustedProxies', 'list'],
  ['FERRY_PROXY_SECRET', 'auth', 'proxySecret', 'string'],
  ['FERRY_PROXY_SECRET_HEADER', 'auth', 'proxySecretHeader', 'string'],
  ['FERRY_SESSION_IDLE_MINUTES', 'sessions', 'idleMinutes', 'number'],
  ['FERRY_SANDBOX', 'sandbox', 'mode', 'string'],
];

function applyAppEnv(input: Record<string, unknown>, env: NodeJS.ProcessEnv, problems: string[]): void {
  for (const [variable, section, field, kind] of APP_ENV) {
    const text = nonEmpty(env[variable]);
    if (text === undefined) continue;
    const target = input[section] as Record<string, unknown>;
    if (typeof target !== 'object' || target === null) continue;
    if (kind === 'number') {
      if (!/^\d+(\.\d+)?$/.test(text.trim())) {
        problems.push(`${variable} (${section}.${field}): expected a number, got "${text}"`);
        continue;
      }
      target[field] = Number(text);
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
 * The example servers run `examples/servers/src/report.ts`: relative paths in a local server's
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

function readJson(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FerryError('E_INVALID_INPUT', `Cannot read ${path}: ${(error as Error).message}`, {
      field: 'config',
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new FerryError('E_INVALID_INPUT', `${path}: the config must be a JSON object`, { field: 'config' });
  }
  return parsed as Record<string, unknown>;
}

function record(value: unknown, section: string, problems: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return structuredClone(value) as Record<string, unknown>;
  }
  problems.push(`${section}: must be an object`);
  return {};
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${path ? `${path}.` : ''}${key}: unknown setting`).join('\n  ');
  }
  return `${path || '(root)'}: ${issue.message}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
