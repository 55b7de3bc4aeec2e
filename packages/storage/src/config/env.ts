// Environment variables override the config file. Each variable maps to one field; the S3 and
// database variables also switch the driver, so `FERRY_S3_*` and `FERRY_DATABASE_URL` alone turn
// the embedded default into scale mode. Empty values count as unset (compose files often
// declare `FERRY_S3_ENDPOINT=` to mean "not used").

import { ENV_EXPECTED, parseEnvFlag, parseEnvNumber } from '@ferry/contract';

type Kind = 'string' | 'number' | 'boolean';

interface EnvBinding {
  variable: string;
  path: readonly string[];
  kind: Kind;
}

const bind = (variable: string, path: string, kind: Kind = 'string'): EnvBinding => ({
  variable,
  path: path.split('.'),
  kind,
});

const ENV_BINDINGS: readonly EnvBinding[] = [
  bind('FERRY_DATA_DIR', 'dataDir'),
  bind('FERRY_PERSIST_FILES_ACROSS_SESSIONS', 'persist_files_across_sessions', 'boolean'),
  bind('FERRY_BASE64_SIZE_LIMIT_MB', 'base64_size_limit_mb', 'number'),
  bind('FERRY_MAX_FILE_SIZE_MB', 'max_file_size_mb', 'number'),
  bind('FERRY_USER_QUOTA_MB', 'user_quota_mb', 'number'),
  bind('FERRY_DEFERRED_EXPIRES_HOURS', 'deferred_expires_hours', 'number'),
  bind('FERRY_S3_ENDPOINT', 'blob.endpoint'),
  bind('FERRY_S3_BUCKET', 'blob.bucket'),
  bind('FERRY_S3_PREFIX', 'blob.prefix'),
  bind('FERRY_S3_REGION', 'blob.region'),
  bind('FERRY_S3_FORCE_PATH_STYLE', 'blob.forcePathStyle', 'boolean'),
  bind('FERRY_S3_ACCESS_KEY_ID', 'blob.accessKeyId'),
  bind('FERRY_S3_SECRET_ACCESS_KEY', 'blob.secretAccessKey'),
  bind('FERRY_DATABASE_URL', 'catalog.url'),
  bind('FERRY_DATABASE_SCHEMA', 'catalog.schema'),
  bind('FERRY_TOKEN_TTL_SECONDS', 'tokens.ttlSeconds', 'number'),
];

/** Key id of the key given by FERRY_TOKEN_SECRET when FERRY_TOKEN_KEY_ID is not set. */
const ENV_TOKEN_KEY_ID = 'env';

export interface ConfigProblem {
  /** Dotted path in the config, e.g. `blob.bucket`. */
  field: string;
  /** The environment variable the bad value came from, if any. */
  variable?: string;
  message: string;
}

export interface EnvOverlay {
  /** Dotted config path → variable that set it. */
  sources: Map<string, string>;
  problems: ConfigProblem[];
}

/** Writes the variables set in `env` into `raw` (a private copy of the file's object). */
export function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): EnvOverlay {
  const sources = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

  const s3 = ENV_BINDINGS.filter((b) => b.path[0] === 'blob' && value(b.variable) !== undefined);
  if (s3.length > 0 && record(raw.blob)?.driver !== 's3') {
    raw.blob = { driver: 's3' };
    sources.set('blob.driver', (s3[0] as EnvBinding).variable);
  }
  if (value('FERRY_DATABASE_URL') !== undefined && record(raw.catalog)?.driver !== 'postgres') {
    raw.catalog = { driver: 'postgres' };
    sources.set('catalog.driver', 'FERRY_DATABASE_URL');
  }

  for (const binding of ENV_BINDINGS) {
    const text = value(binding.variable);
    if (text === undefined) continue;
    const field = binding.path.join('.');
    if (field === 'catalog.schema' && record(raw.catalog)?.driver !== 'postgres') {
      problems.push({
        field,
        variable: binding.variable,
        message: 'applies to a PostgreSQL catalog only (set FERRY_DATABASE_URL)',
      });
      continue;
    }
    const parsed = parseValue(text, binding.kind);
    if (parsed === undefined) {
      problems.push({
        field,
        variable: binding.variable,
        message: `expected ${describe(binding.kind)}, got "${text}"`,
      });
      continue;
    }
    setPath(raw, binding.path, parsed);
    sources.set(field, binding.variable);
  }

  // The env key joins the file's keys and signs: rotating means setting a new secret while the
  // old key stays listed in the file until its last tokens have expired.
  const secret = value('FERRY_TOKEN_SECRET');
  if (secret !== undefined) {
    const id = value('FERRY_TOKEN_KEY_ID') ?? ENV_TOKEN_KEY_ID;
    const tokens = record(raw.tokens) ?? {};
    const fileKeys = Array.isArray(tokens.keys) ? tokens.keys.filter((k) => record(k)?.id !== id) : [];
    tokens.keys = [...fileKeys, { id, secret }];
    tokens.activeKeyId = id;
    raw.tokens = tokens;
    sources.set(`tokens.keys.${fileKeys.length}.secret`, 'FERRY_TOKEN_SECRET');
    sources.set(`tokens.keys.${fileKeys.length}.id`, 'FERRY_TOKEN_KEY_ID');
    sources.set('tokens.activeKeyId', 'FERRY_TOKEN_KEY_ID');
  }
  return { sources, problems };
}

/** The variable that can set a config path, for hints in error messages. */
export function variableFor(field: string): string | undefined {
  if (field === 'tokens.keys' || /^tokens\.keys\.\d+\.secret$/.test(field)) return 'FERRY_TOKEN_SECRET';
  return ENV_BINDINGS.find((b) => b.path.join('.') === field)?.variable;
}

function parseValue(text: string, kind: Kind): string | number | boolean | undefined {
  if (kind === 'string') return text;
  return kind === 'boolean' ? parseEnvFlag(text) : parseEnvNumber(text);
}

function describe(kind: Kind): string {
  return kind === 'boolean' ? ENV_EXPECTED.flag : ENV_EXPECTED.number;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = record(node[key]) ?? {};
    node[key] = next;
    node = next;
  }
  node[path[path.length - 1] as string] = value;
}
