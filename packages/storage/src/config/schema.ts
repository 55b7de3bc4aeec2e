import { z } from 'zod';

// The storage section of ferry.config, as data. Flag names are the spec's (v2.1 §2.2, snake
// case); driver options use the drivers' own camelCase names. Unknown keys are errors, so a
// typo such as `max_file_size` fails at startup instead of being ignored.

/** Sizes in the config are mebibytes: 1 MB = 1,048,576 bytes. */
export const BYTES_PER_MB = 1024 * 1024;
export const DEFAULT_DATA_DIR = './.ferry';

const positive = (what: string) => z.number().finite().positive(`${what} must be greater than 0`);
const text = (what: string) => z.string().min(1, `${what} must not be empty`);

export const storageFlagsShape = {
  /** false: a session's files are deleted when the session ends. */
  persist_files_across_sessions: z.boolean(),
  /** Files up to this size may be handed to tools and the UI inline as base64. */
  base64_size_limit_mb: positive('base64_size_limit_mb'),
  /** Uploads and tool outputs above it fail with E_FILE_TOO_LARGE. */
  max_file_size_mb: positive('max_file_size_mb'),
  /** Total bytes one user may store; null = unlimited. */
  user_quota_mb: positive('user_quota_mb').nullable(),
  /** Lifetime of deferred artifacts that do not set their own `expires_hours`. */
  deferred_expires_hours: positive('deferred_expires_hours'),
};

const localBlobSchema = z.strictObject({
  driver: z.literal('local'),
  /** @default `<dataDir>/blobs` */
  root: text('blob.root').optional(),
});

const s3BlobSchema = z
  .strictObject({
    driver: z.literal('s3'),
    /** Omit for AWS; `http://127.0.0.1:9000` for MinIO, the RGW URL for Ceph. */
    endpoint: z.url({ protocol: /^https?$/, error: 'blob.endpoint must be an http(s) URL' }).optional(),
    bucket: text('blob.bucket'),
    /** Key prefix inside the bucket, e.g. `ferry/`. @default '' */
    prefix: z.string().default(''),
    /** @default 'us-east-1' */
    region: text('blob.region').default('us-east-1'),
    /** Path-style URLs (`endpoint/bucket/key`), which MinIO and Ceph RGW usually need. @default false */
    forcePathStyle: z.boolean().default(false),
    /** Omit both to use the AWS SDK's default credential chain. */
    accessKeyId: text('blob.accessKeyId').optional(),
    secretAccessKey: text('blob.secretAccessKey').optional(),
  })
  .refine((s3) => (s3.accessKeyId === undefined) === (s3.secretAccessKey === undefined), {
    error: 'set both accessKeyId and secretAccessKey, or neither',
    path: ['secretAccessKey'],
  });

const sqliteCatalogSchema = z.strictObject({
  driver: z.literal('sqlite'),
  /** @default `<dataDir>/catalog.db` */
  filename: text('catalog.filename').optional(),
});

const postgresCatalogSchema = z.strictObject({
  driver: z.literal('postgres'),
  url: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'catalog.url must be a postgres:// or postgresql:// URL'),
  /** @default 'public' */
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'catalog.schema must be lowercase letters, digits and _')
    .optional(),
});

const tokenKeySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'token key id must be 1-64 of A-Z a-z 0-9 _ -'),
  secret: z
    .string()
    .refine((s) => Buffer.byteLength(s, 'utf8') >= 32, 'token secret must be at least 32 bytes'),
});

const tokensSchema = z
  .strictObject({
    /** Every key that verifies. Empty: the FileStore signs with a random per-process key. */
    keys: z.array(tokenKeySchema).default([]),
    /** The signing key. @default the only key, when there is one */
    activeKeyId: z.string().optional(),
    /** Lifetime of download URLs handed to tools. @default 300 */
    ttlSeconds: z.number().int('tokens.ttlSeconds must be an integer').min(1).max(86_400).default(300),
  })
  .transform((tokens, ctx) => {
    const ids = tokens.keys.map((k) => k.id);
    if (new Set(ids).size !== ids.length)
      ctx.addIssue({ code: 'custom', message: 'token key ids must be unique', path: ['keys'] });
    const activeKeyId = tokens.activeKeyId ?? (ids.length === 1 ? ids[0] : undefined);
    if (ids.length > 1 && activeKeyId === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'activeKeyId is required when several keys are listed',
        path: ['activeKeyId'],
      });
    } else if (activeKeyId !== undefined && !ids.includes(activeKeyId)) {
      ctx.addIssue({
        code: 'custom',
        message: `activeKeyId "${activeKeyId}" is not among the keys`,
        path: ['activeKeyId'],
      });
    }
    return { ...tokens, activeKeyId: activeKeyId ?? null };
  });

export const storageConfigSchema = z
  .strictObject({
    persist_files_across_sessions: storageFlagsShape.persist_files_across_sessions.default(true),
    base64_size_limit_mb: storageFlagsShape.base64_size_limit_mb.default(300),
    max_file_size_mb: storageFlagsShape.max_file_size_mb.default(10_240),
    user_quota_mb: storageFlagsShape.user_quota_mb.default(null),
    deferred_expires_hours: storageFlagsShape.deferred_expires_hours.default(72),
    /** Base of the embedded defaults (`blobs/`, `catalog.db`). @default './.ferry' */
    dataDir: text('dataDir').default(DEFAULT_DATA_DIR),
    blob: z.discriminatedUnion('driver', [localBlobSchema, s3BlobSchema]).default({ driver: 'local' }),
    catalog: z
      .discriminatedUnion('driver', [sqliteCatalogSchema, postgresCatalogSchema])
      .default({ driver: 'sqlite' }),
    tokens: tokensSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    // A random per-process key works for one instance only; PostgreSQL means several.
    if (config.catalog.driver === 'postgres' && config.tokens.keys.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a PostgreSQL catalog (FERRY_DATABASE_URL) needs a token key shared by every instance, so each accepts the download links the others sign: set FERRY_TOKEN_SECRET to the same random secret of at least 32 bytes on every instance (for example the output of `openssl rand -hex 32`), or list the keys in storage.tokens.keys',
        path: ['tokens', 'keys'],
      });
    }
  });

/** What the config file may contain (every field optional). */
export type StorageConfigInput = z.input<typeof storageConfigSchema>;
type Parsed = z.output<typeof storageConfigSchema>;

/** The loaded configuration: defaults filled, paths resolved against `dataDir`, deep-frozen. */
export type StorageConfig = DeepReadonly<
  Omit<Parsed, 'blob' | 'catalog'> & {
    blob: Exclude<Parsed['blob'], { driver: 'local' }> | { driver: 'local'; root: string };
    catalog: Exclude<Parsed['catalog'], { driver: 'sqlite' }> | { driver: 'sqlite'; filename: string };
  }
>;

export type StorageFlags = {
  [K in keyof typeof storageFlagsShape]: z.output<(typeof storageFlagsShape)[K]>;
};

export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
