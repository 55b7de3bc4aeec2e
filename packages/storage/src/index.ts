// Public API of @ferry/storage. Any export added here becomes public: named exports only.
export type {
  BlobDriver,
  BlobEntry,
  BlobPartial,
  BlobPutOptions,
  BlobStat,
  ByteRange,
} from './blob/driver.js';
export { createLocalBlobDriver, type LocalBlobDriverOptions } from './blob/local.js';
export { createS3BlobDriver, type S3BlobDriverOptions } from './blob/s3.js';
export { createPostgresCatalog, type PostgresCatalogOptions } from './catalog/postgres.js';
export { createSqliteCatalog, type SqliteCatalogOptions } from './catalog/sqlite.js';
export type {
  Catalog,
  CatalogStats,
  FileRecord,
  ListOptions,
  ListResult,
  ListSort,
  Reservation,
  ReserveRequest,
  Usage,
  UserRecord,
} from './catalog/types.js';
export { variableFor } from './config/env.js';
export { type EffectiveFlags, effectiveFlags } from './config/flags.js';
export { type LoadStorageConfigOptions, loadStorageConfig } from './config/load-config.js';
export {
  BYTES_PER_MB,
  DEFAULT_DATA_DIR,
  type StorageConfig,
  type StorageConfigInput,
  type StorageFlags,
  storageConfigSchema,
} from './config/schema.js';
export { conversationStoreOf } from './conversations/catalog-conversation-store.js';
export type {
  ConversationListOptions,
  ConversationRecord,
  ConversationStore,
  MessageRecord,
  NewMessage,
} from './conversations/types.js';
export {
  DATA_DIR_LOCK_FILE,
  DATA_DIR_LOCK_INFO_FILE,
  type DataDirLock,
  type DataDirLockHolder,
  lockDataDir,
} from './data-dir-lock.js';
export {
  type CheckConfiguredStorageOptions,
  checkConfiguredStorage,
} from './maintenance/check-configured-storage.js';
export {
  checkStorage,
  DEFAULT_FSCK_GRACE_MS,
  type FsckFindings,
  type FsckOptions,
  type FsckReport,
  type MissingBlobItem,
  type OrphanBlobItem,
  type PartialUploadItem,
} from './maintenance/fsck.js';
export { OAUTH_KEY_FILE, oauthKeysFor } from './oauth/credential-keys.js';
export {
  type OAuthCredentialEntry,
  type OAuthCredentialStore,
  type OAuthCredentialStoreOptions,
  type OAuthSecrets,
  oauthCredentialStoreOf,
} from './oauth/oauth-credential-store.js';
export { createSecretBox, type SecretBox, type SecretBoxKey } from './oauth/secret-box.js';
export { type OpenedStorage, openStorage, type StorageModes } from './open-storage.js';
export {
  createFileStore,
  type FileContent,
  type FileRef,
  type FileStore,
  type FileStoreOptions,
  type PutOptions,
  type PutResult,
  type SweepResult,
} from './store/file-store.js';
export {
  createTokenSigner,
  DEFAULT_TOKEN_TTL_SECONDS,
  type TokenFailureReason,
  type TokenSigner,
  type TokenSignerOptions,
  type TokenVerification,
} from './tokens/token-signer.js';
