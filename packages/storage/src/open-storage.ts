// Builds the FileStore the configuration asks for: the embedded default (local disk + SQLite
// under ./.ferry) needs nothing; FERRY_S3_* and FERRY_DATABASE_URL switch to scale mode.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { BlobDriver } from './blob/driver.js';
import { createLocalBlobDriver } from './blob/local.js';
import { createS3BlobDriver } from './blob/s3.js';
import { createPostgresCatalog } from './catalog/postgres.js';
import { createSqliteCatalog } from './catalog/sqlite.js';
import type { Catalog } from './catalog/types.js';
import type { StorageConfig } from './config/schema.js';
import { conversationStoreOf } from './conversations/catalog-conversation-store.js';
import type { ConversationStore } from './conversations/types.js';
import { oauthKeysFor } from './oauth/credential-keys.js';
import { type OAuthCredentialStore, oauthCredentialStoreOf } from './oauth/oauth-credential-store.js';
import { createFileStore, type FileStore, type FileStoreOptions } from './store/file-store.js';
import { createTokenSigner, type TokenSigner } from './tokens/token-signer.js';

export interface StorageModes {
  blob: 'local' | 's3';
  catalog: 'sqlite' | 'postgres';
  /** 'config' when keys are configured; 'ephemeral' when a random per-process key signs. */
  tokens: 'config' | 'ephemeral';
}

export interface OpenedStorage {
  files: FileStore;
  /** Chats with the model, in the same database as the catalog. */
  conversations: ConversationStore;
  /** OAuth credentials of remote MCP servers, per user and server, encrypted (same database). */
  oauth: OAuthCredentialStore;
  modes: StorageModes;
  /**
   * Readiness probes (the app's GET /readyz): a trivial query on the catalog's database, and the
   * blob driver's `ping`. Each rejects with the backend's own error.
   */
  ping: {
    catalog(): Promise<void>;
    blobs(options?: { signal?: AbortSignal }): Promise<void>;
  };
  close(): Promise<void>;
}

export async function openStorage(
  config: StorageConfig,
  overrides: Pick<FileStoreOptions, 'now' | 'pendingGraceMs'> = {},
): Promise<OpenedStorage> {
  const blobs = createBlobs(config);
  let catalog: Catalog;
  try {
    catalog = await createCatalog(config, overrides.now);
  } catch (error) {
    await blobs.close?.();
    throw error;
  }
  const tokens = createTokens(config);
  const files = createFileStore({ blobs, catalog, config, tokens: tokens.signer, ...overrides });
  const conversations = conversationStoreOf(catalog, overrides.now ? { now: overrides.now } : {});
  const oauth = oauthCredentialStoreOf(catalog, {
    ...oauthKeysFor(config),
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  return {
    files,
    conversations,
    oauth,
    modes: { blob: config.blob.driver, catalog: config.catalog.driver, tokens: tokens.mode },
    ping: {
      catalog: async () => {
        await sql`select 1`.execute(catalog.database.db);
      },
      blobs: (options) => blobs.ping(options),
    },
    close: async () => {
      await files.close();
    },
  };
}

/** The blob driver the configuration names (also what `ferry admin fsck` checks). */
export function createBlobs(config: StorageConfig): BlobDriver {
  const blob = config.blob;
  if (blob.driver === 'local') return createLocalBlobDriver({ root: blob.root });
  return createS3BlobDriver({
    bucket: blob.bucket,
    prefix: blob.prefix,
    region: blob.region,
    forcePathStyle: blob.forcePathStyle,
    ...(blob.endpoint ? { endpoint: blob.endpoint } : {}),
    ...(blob.accessKeyId && blob.secretAccessKey
      ? { credentials: { accessKeyId: blob.accessKeyId, secretAccessKey: blob.secretAccessKey } }
      : {}),
  });
}

/** `now` is the FileStore's clock too: rows are stamped by the same time the sweeper compares. */
export function createCatalog(config: StorageConfig, now?: () => Date): Promise<Catalog> {
  const catalog = config.catalog;
  const clock = now ? { now } : {};
  if (catalog.driver === 'sqlite') return createSqliteCatalog({ filename: catalog.filename, ...clock });
  return createPostgresCatalog({
    connectionString: catalog.url,
    ...(catalog.schema ? { schema: catalog.schema } : {}),
    ...clock,
  });
}

function createTokens(config: StorageConfig): { signer: TokenSigner; mode: StorageModes['tokens'] } {
  const { keys, activeKeyId, ttlSeconds } = config.tokens;
  if (keys.length > 0 && activeKeyId) {
    return {
      signer: createTokenSigner({ keys: [...keys], activeKeyId, defaultTtlSeconds: ttlSeconds }),
      mode: 'config',
    };
  }
  // One instance only (the schema demands keys with PostgreSQL): tokens die with the process,
  // which is fine for 5-minute tool URLs.
  return {
    signer: createTokenSigner({
      keys: [{ id: 'ephemeral', secret: randomBytes(32) }],
      activeKeyId: 'ephemeral',
      defaultTtlSeconds: ttlSeconds,
    }),
    mode: 'ephemeral',
  };
}
