// Child process for the crash tests: starts a write that never finishes on its own (an endless
// slow stream) so the parent can SIGKILL it mid-write. Run with `node --import tsx
// --conditions=ferry-source` (see spawnCrashWriter). Prints "started" once 2 MiB have been read:
// backpressure means the writer has then really written well over 1 MiB.
//   blob <root> <key>       a bare local-driver put
//   store <dir> <username>  a FileStore put (local blobs + SQLite catalog under <dir>)
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { createFileStore } from '../../src/store/file-store.js';
import { createTokenSigner } from '../../src/tokens/token-signer.js';

const [mode, dir, name] = process.argv.slice(2);
if ((mode !== 'blob' && mode !== 'store') || !dir || !name) {
  console.error('usage: crash-writer.ts blob <root> <key> | store <dir> <username>');
  process.exit(2);
}

const chunk = Buffer.alloc(64 * 1024, 0x6e);
let read = 0;
const endless = new Readable({
  read() {
    setTimeout(() => {
      read += chunk.length;
      if (read === 32 * chunk.length) process.stdout.write('started\n');
      this.push(chunk);
    }, 2);
  },
});

const fail = (error: unknown) => {
  console.error(error ?? 'the endless write resolved');
  process.exit(1);
};

if (mode === 'blob') {
  createLocalBlobDriver({ root: dir })
    .put(name, endless)
    .then(() => fail(undefined), fail);
} else {
  const blobs = createLocalBlobDriver({ root: join(dir, 'blobs') });
  const catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db') });
  const config = loadStorageConfig({ file: { dataDir: dir }, env: {} });
  const tokens = createTokenSigner({ keys: [{ id: 'k', secret: 'k'.repeat(32) }], activeKeyId: 'k' });
  const files = createFileStore({ blobs, catalog, config, tokens });
  const owner = await files.ensureUser(name);
  files.put(owner, 'big.bin', endless).then(() => fail(undefined), fail);
}
