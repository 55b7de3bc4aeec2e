// The storage promise "streams only: never a whole file in memory", measured: 1 GiB through the
// FileStore (hash, sniff, catalog, local driver) and back while the test process's RSS is watched. Runs in CI on purpose (about
// 1 GiB of temp disk, removed afterwards); it is in its own file so that Vitest gives it a fresh
// worker process and the RSS baseline is not the leftover of other tests.

import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { createFileStore } from '../../src/store/file-store.js';
import { createTokenSigner } from '../../src/tokens/token-signer.js';
import { pseudoRandomChunks, readAll, streamOf } from '../support/streams.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const RSS_BUDGET = 64 * MIB;

/**
 * `global.gc` when Node runs with --expose-gc; otherwise the flag is switched on now and a fresh
 * context hands out the function, since Vitest's workers do not get the flag. A collected baseline
 * is the strict one: garbage counted in it could later be freed and hide real growth.
 */
function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

it('[1 GiB streaming] FileStore put and get of 1 GiB: sha256 in = sha256 out, RSS growth under 64 MiB', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'ferry-1gib-'));
  try {
    const files = createFileStore({
      blobs: createLocalBlobDriver({ root: join(parent, 'blobs') }),
      catalog: await createSqliteCatalog({ filename: join(parent, 'catalog.db') }),
      config: loadStorageConfig({ file: { dataDir: parent }, env: {} }),
      tokens: createTokenSigner({ keys: [{ id: 'k', secret: 'k'.repeat(32) }], activeKeyId: 'k' }),
    });
    const owner = await files.ensureUser('big');
    const gc = exposedGc();
    gc();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage.rss());
    };
    // Per chunk below, and on a timer in case a phase (fsync, rename) allocates between chunks.
    const timer = setInterval(sample, 10);

    const inputHash = createHash('sha256');
    let tail: Buffer = Buffer.alloc(0);
    async function* source(): AsyncGenerator<Buffer> {
      for await (const chunk of pseudoRandomChunks(GIB, { seed: 51, chunkSize: 256 * 1024 })) {
        inputHash.update(chunk);
        tail = chunk.subarray(chunk.length - 16);
        sample();
        yield chunk;
      }
    }

    try {
      const stored = await files.put(owner, 'huge.bin', streamOf(source()));
      const inputDigest = inputHash.digest('hex');
      expect(stored).toMatchObject({ size: GIB, sha256: inputDigest, version: 1 });

      const outputHash = createHash('sha256');
      let outputSize = 0;
      for await (const chunk of (await files.get(owner, { id: stored.id })).stream) {
        outputHash.update(chunk as Buffer);
        outputSize += (chunk as Buffer).length;
        sample();
      }
      sample();
      expect(outputSize).toBe(GIB);
      expect(outputHash.digest('hex')).toBe(inputDigest);
      // A range at the far end of a large file, without reading what comes before it.
      const end = await files.get(owner, { id: stored.id }, { range: { start: GIB - 16 } });
      expect(await readAll(end.stream)).toEqual(tail);
    } finally {
      clearInterval(timer);
    }

    const growth = peak - baseline;
    expect(growth, `RSS grew ${(growth / MIB).toFixed(1)} MiB`).toBeLessThan(RSS_BUDGET);
    await files.close();
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}, 300_000);
