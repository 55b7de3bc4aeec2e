import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStorageConfig } from '../../src/config/load-config.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';

/** The FerryError's message, or a failure if loading succeeded. */
function problem(file: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadStorageConfig({ file, env });
  } catch (error) {
    expect(error).toMatchObject({ name: 'FerryError', code: 'E_INVALID_INPUT' });
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('loadStorageConfig', () => {
  it('needs nothing: embedded defaults on local disk and SQLite under ./.ferry', () => {
    expect(loadStorageConfig({ env: {} })).toEqual({
      persist_files_across_sessions: true,
      base64_size_limit_mb: 300,
      max_file_size_mb: 10_240,
      user_quota_mb: null,
      deferred_expires_hours: 72,
      dataDir: './.ferry',
      blob: { driver: 'local', root: join('./.ferry', 'blobs') },
      catalog: { driver: 'sqlite', filename: join('./.ferry', 'catalog.db') },
      tokens: { keys: [], activeKeyId: null, ttlSeconds: 300 },
    });
  });

  it('takes file values, and environment variables win over them', () => {
    const file = {
      persist_files_across_sessions: true,
      base64_size_limit_mb: 10,
      max_file_size_mb: 100,
      user_quota_mb: 500,
      deferred_expires_hours: 24,
      dataDir: '/srv/ferry',
    };
    expect(loadStorageConfig({ file, env: {} })).toMatchObject({
      ...file,
      blob: { root: '/srv/ferry/blobs' },
    });
    const config = loadStorageConfig({
      file,
      env: {
        FERRY_PERSIST_FILES_ACROSS_SESSIONS: 'false',
        FERRY_BASE64_SIZE_LIMIT_MB: '2.5',
        FERRY_MAX_FILE_SIZE_MB: ' 2048 ',
        FERRY_USER_QUOTA_MB: '1e3',
        FERRY_DEFERRED_EXPIRES_HOURS: '1',
        FERRY_DATA_DIR: '/data',
        FERRY_TOKEN_TTL_SECONDS: '60',
        // Empty means unset, and unrelated variables are ignored.
        FERRY_S3_ENDPOINT: '',
        HOME: '/root',
      },
    });
    expect(config).toMatchObject({
      persist_files_across_sessions: false,
      base64_size_limit_mb: 2.5,
      max_file_size_mb: 2048,
      user_quota_mb: 1000,
      deferred_expires_hours: 1,
      dataDir: '/data',
      blob: { driver: 'local', root: '/data/blobs' },
      catalog: { driver: 'sqlite', filename: '/data/catalog.db' },
      tokens: { ttlSeconds: 60 },
    });
  });

  it('keeps explicit paths from the file when FERRY_DATA_DIR moves the defaults', () => {
    const file = {
      blob: { driver: 'local', root: '/blobs' },
      catalog: { driver: 'sqlite', filename: '/db/c.db' },
    };
    expect(loadStorageConfig({ file, env: { FERRY_DATA_DIR: '/data' } })).toMatchObject(file);
  });

  it('FERRY_S3_* switch to S3 and override the file S3 settings field by field', () => {
    const env = {
      FERRY_S3_ENDPOINT: 'http://127.0.0.1:9000',
      FERRY_S3_BUCKET: 'ferry',
      FERRY_S3_PREFIX: 'prod/',
      FERRY_S3_REGION: 'eu-west-1',
      FERRY_S3_FORCE_PATH_STYLE: 'yes',
      FERRY_S3_ACCESS_KEY_ID: 'AKIA',
      FERRY_S3_SECRET_ACCESS_KEY: 'shh',
    };
    expect(loadStorageConfig({ file: { blob: { driver: 'local', root: '/x' } }, env }).blob).toEqual({
      driver: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'ferry',
      prefix: 'prod/',
      region: 'eu-west-1',
      forcePathStyle: true,
      accessKeyId: 'AKIA',
      secretAccessKey: 'shh',
    });
    const file = { blob: { driver: 's3', bucket: 'from-file', region: 'us-east-2', forcePathStyle: true } };
    expect(loadStorageConfig({ file, env: { FERRY_S3_BUCKET: 'from-env' } }).blob).toEqual({
      driver: 's3',
      bucket: 'from-env',
      prefix: '',
      region: 'us-east-2',
      forcePathStyle: true,
    });
  });

  it('FERRY_DATABASE_URL switches to PostgreSQL, which needs a shared token key', () => {
    const env = { FERRY_DATABASE_URL: 'postgres://ferry@db:5432/ferry', FERRY_DATABASE_SCHEMA: 'ferry' };
    const message = problem({}, env);
    expect(message).toMatch(/tokens\.keys: .*PostgreSQL.*\(or set FERRY_TOKEN_SECRET\)/);
    const config = loadStorageConfig({ env: { ...env, FERRY_TOKEN_SECRET: SECRET } });
    expect(config.catalog).toEqual({
      driver: 'postgres',
      url: 'postgres://ferry@db:5432/ferry',
      schema: 'ferry',
    });
    expect(config.tokens).toEqual({
      keys: [{ id: 'env', secret: SECRET }],
      activeKeyId: 'env',
      ttlSeconds: 300,
    });
  });

  it('FERRY_TOKEN_SECRET becomes the active key while the file keys keep verifying', () => {
    const old = { id: 'k1', secret: 'k'.repeat(32) };
    const file = { tokens: { keys: [old, { id: 'rotated', secret: 'r'.repeat(32) }], activeKeyId: 'k1' } };
    const config = loadStorageConfig({
      file,
      env: { FERRY_TOKEN_SECRET: SECRET, FERRY_TOKEN_KEY_ID: 'rotated' },
    });
    expect(config.tokens).toEqual({
      keys: [old, { id: 'rotated', secret: SECRET }],
      activeKeyId: 'rotated',
      ttlSeconds: 300,
    });
    expect(loadStorageConfig({ file: { tokens: { keys: [old] } }, env: {} }).tokens.activeKeyId).toBe('k1');
    expect(problem({ tokens: { keys: [old, { ...old, id: 'k2' }] } })).toMatch(
      /tokens\.activeKeyId: .*required/,
    );
    expect(problem({ tokens: { keys: [old, old], activeKeyId: 'k1' } })).toMatch(/tokens\.keys: .*unique/);
    expect(problem({ tokens: { keys: [old], activeKeyId: 'nope' } })).toMatch(
      /tokens\.activeKeyId: .*"nope"/,
    );
  });

  it('names the environment variable, the field and the problem for bad env values', () => {
    expect(problem({}, { FERRY_MAX_FILE_SIZE_MB: 'lots' })).toContain(
      'FERRY_MAX_FILE_SIZE_MB (max_file_size_mb): expected a number, got "lots"',
    );
    expect(problem({}, { FERRY_MAX_FILE_SIZE_MB: '-5' })).toContain(
      'FERRY_MAX_FILE_SIZE_MB (max_file_size_mb): max_file_size_mb must be greater than 0',
    );
    expect(problem({}, { FERRY_BASE64_SIZE_LIMIT_MB: '0x10' })).toContain('FERRY_BASE64_SIZE_LIMIT_MB');
    expect(problem({}, { FERRY_PERSIST_FILES_ACROSS_SESSIONS: 'maybe' })).toContain(
      'FERRY_PERSIST_FILES_ACROSS_SESSIONS (persist_files_across_sessions): expected true or false (also 1/0, yes/no, on/off), got "maybe"',
    );
    expect(problem({}, { FERRY_DATABASE_URL: 'mysql://db/ferry', FERRY_TOKEN_SECRET: SECRET })).toContain(
      'FERRY_DATABASE_URL (catalog.url): catalog.url must be a postgres:// or postgresql:// URL',
    );
    expect(problem({}, { FERRY_S3_ENDPOINT: 'ftp://x' })).toContain('FERRY_S3_ENDPOINT (blob.endpoint)');
    expect(problem({}, { FERRY_DATABASE_SCHEMA: 'ferry' })).toContain(
      'FERRY_DATABASE_SCHEMA (catalog.schema): applies to a PostgreSQL catalog only',
    );
    expect(
      problem({}, { FERRY_DATABASE_URL: 'postgres://db/x', FERRY_DATABASE_SCHEMA: 'Bad-Name' }),
    ).toContain('FERRY_DATABASE_SCHEMA (catalog.schema): catalog.schema must be lowercase');
    expect(problem({}, { FERRY_TOKEN_TTL_SECONDS: '1.5' })).toContain(
      'FERRY_TOKEN_TTL_SECONDS (tokens.ttlSeconds)',
    );
    const short = problem({}, { FERRY_TOKEN_SECRET: 'hunter2' });
    expect(short).toContain(
      'FERRY_TOKEN_SECRET (tokens.keys.0.secret): token secret must be at least 32 bytes',
    );
    expect(short).not.toContain('hunter2');
  });

  it('names the field for bad file values, unknown keys and missing S3 settings, all at once', () => {
    const message = problem({ max_file_size_mb: '10', max_file_sise_mb: 10, catalog: { driver: 'mysql' } });
    expect(message).toMatch(/max_file_size_mb: .*expected number.*\(or set FERRY_MAX_FILE_SIZE_MB\)/);
    expect(message).toContain('max_file_sise_mb: unknown setting');
    expect(message).toContain('catalog.driver:');
    expect(problem({}, { FERRY_S3_REGION: 'eu-west-1' })).toMatch(
      /blob\.bucket: .*\(or set FERRY_S3_BUCKET\)/,
    );
    expect(problem({ blob: { driver: 's3', bucket: 'b', accessKeyId: 'AKIA' } })).toContain(
      'blob.secretAccessKey: set both accessKeyId and secretAccessKey, or neither',
    );
    expect(problem([])).toContain('(root): the storage config must be an object');
    expect(problem('ferry.json')).toContain('(root)');
    const error = (() => {
      try {
        loadStorageConfig({ file: { dataDir: '' }, env: { FERRY_MAX_FILE_SIZE_MB: '0' } });
      } catch (e) {
        return e as { details: { problems: unknown[] } };
      }
    })();
    expect(error?.details.problems).toEqual([
      {
        field: 'max_file_size_mb',
        variable: 'FERRY_MAX_FILE_SIZE_MB',
        message: 'max_file_size_mb must be greater than 0',
      },
      { field: 'dataDir', message: 'dataDir must not be empty' },
    ]);
  });

  it('returns a deep-frozen config and leaves the given file object alone', () => {
    const file = { tokens: { keys: [{ id: 'k1', secret: 'k'.repeat(32) }] }, blob: { driver: 'local' } };
    const before = structuredClone(file);
    const config = loadStorageConfig({ file, env: { FERRY_MAX_FILE_SIZE_MB: '5' } });
    expect(file).toEqual(before);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.blob)).toBe(true);
    expect(Object.isFrozen(config.tokens.keys)).toBe(true);
    expect(Object.isFrozen(config.tokens.keys[0])).toBe(true);
    expect(() => {
      (config as { max_file_size_mb: number }).max_file_size_mb = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.tokens.keys as unknown[]).push({});
    }).toThrow(TypeError);
    expect(config.max_file_size_mb).toBe(5);
  });
});
