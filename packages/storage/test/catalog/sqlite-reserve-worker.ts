// Child process for sqlite.test.ts: opens the catalog file itself, waits for "go" on stdin so
// every worker starts together, asks for a 4 MiB reservation (20 MiB quota) on each of its
// pending ids at once and prints how many were granted.
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';

const MIB = 1024 * 1024;
const [filename, owner, ids] = process.argv.slice(2) as [string, string, string];
const catalog = await createSqliteCatalog({ filename, migrate: false });
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const results = await Promise.all(
  ids.split(',').map((id) => catalog.reserve(owner, id, { bytes: 4 * MIB, quotaBytes: 20 * MIB })),
);
process.stdout.write(`${JSON.stringify(results.filter((r) => r.ok).length)}\n`);
await catalog.close();
process.stdin.destroy();
