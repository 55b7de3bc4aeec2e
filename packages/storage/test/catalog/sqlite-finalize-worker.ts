// Child process for sqlite.test.ts: opens the catalog file itself, waits for "go" on stdin so
// every worker starts together, finalizes its pending ids at once and prints their versions.
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';

const [filename, owner, ids] = process.argv.slice(2) as [string, string, string];
const catalog = await createSqliteCatalog({ filename, migrate: false });
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const sha256 = '0'.repeat(64);
const files = await Promise.all(ids.split(',').map((id) => catalog.finalize(owner, id, { size: 1, sha256 })));
process.stdout.write(`${JSON.stringify(files.map((f) => f.version))}\n`);
await catalog.close();
process.stdin.destroy();
