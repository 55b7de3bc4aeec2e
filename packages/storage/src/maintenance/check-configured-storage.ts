// fsck over the storage a configuration names, the same blob driver and catalog `ferry start`
// opens (open-storage.ts), without a FileStore: an operator's command on the machine, not a request.
import { existsSync } from 'node:fs';
import type { StorageConfig } from '../config/schema.js';
import { createBlobs, createCatalog } from '../open-storage.js';
import { checkStorage, type FsckOptions, type FsckReport } from './fsck.js';

export type CheckConfiguredStorageOptions = Omit<FsckOptions, 'blobs' | 'catalog'>;

export async function checkConfiguredStorage(
  config: StorageConfig,
  options: CheckConfiguredStorageOptions = {},
): Promise<FsckReport> {
  // Opening SQLite creates the file: run in the wrong directory, fsck would make an empty catalog
  // and then call every blob an orphan.
  if (config.catalog.driver === 'sqlite' && !existsSync(config.catalog.filename)) {
    throw new Error(
      `no catalog at ${config.catalog.filename}: is this Ferry's data directory? (dataDir, FERRY_DATA_DIR or --config)`,
    );
  }
  const blobs = createBlobs(config);
  try {
    const catalog = await createCatalog(config);
    try {
      return await checkStorage({ ...options, blobs, catalog });
    } finally {
      await catalog.close();
    }
  } finally {
    await blobs.close?.();
  }
}
