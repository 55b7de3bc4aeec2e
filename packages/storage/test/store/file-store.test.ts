// Every FileStore test on all four combinations of blob driver and catalog, against real
// backends: a local directory, s3rver on loopback, SQLite, and the machine's PostgreSQL.
import { describeFileStore } from './file-store-suite.js';
import { describeFileStoreOwners } from './file-store-suite-owners.js';
import { describeFileStoreQuota } from './file-store-suite-quota.js';
import { COMBINATIONS, createHarness } from './harness.js';

for (const [blob, catalog] of COMBINATIONS) {
  const label = `${blob} + ${catalog}`;
  // 1 MiB keeps the limit tests fast; the 1 GiB test runs with the default limit.
  const make = () => createHarness(blob, catalog, { config: { max_file_size_mb: 1 } });
  describeFileStore(label, make);
  describeFileStoreOwners(label, make);
  // 4 MiB files against a 20 MiB quota: only the quota may refuse them.
  describeFileStoreQuota(label, () => createHarness(blob, catalog, { config: { max_file_size_mb: 8 } }));
}
