// Deferred files expire when they say, on SQLite and on PostgreSQL: a draft with a one-second
// expiry is listed, downloadable, found by name and in the model's file block until that second
// has passed, and from then on in none of them (404 E_FILE_NOT_FOUND for its content), while the
// sweep, every maintenance.fileSweepMinutes, only reclaims its space later. The catalog and the
// FileStore share a clock the test moves, so no test waits for expiry in real time.
import { randomBytes } from 'node:crypto';
import { EventEmitter, on } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buildFileBlock } from '@ferry/agent';
import { createHost, type Host } from '@ferry/host';
import {
  type Catalog,
  createFileStore,
  createLocalBlobDriver,
  createPostgresCatalog,
  createSqliteCatalog,
  createTokenSigner,
  type FileStore,
  loadStorageConfig,
  type SweepResult,
} from '@ferry/storage';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { type FileJson, http, uploadOk } from '../support/start-app.js';

const POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** 600 ms between sweeps: often enough to see one, far from the one-second expiry's edges. */
const FILE_SWEEP_MINUTES = 0.01;

interface Running {
  url: string;
  files: FileStore;
  clock: { now: Date };
  /** Every sweep the maintenance runs, as it finishes. */
  sweeps: EventEmitter;
  close(): Promise<void>;
}

async function startFerry(dialect: 'sqlite' | 'postgres'): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), `ferry-expiry-${dialect}-`));
  const clock = { now: new Date() };
  const now = () => clock.now;
  let catalog: Catalog;
  let dropSchema = async () => {};
  if (dialect === 'sqlite') {
    catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db'), now });
  } else {
    const schema = `ferry_expiry_${randomBytes(6).toString('hex')}`;
    catalog = await createPostgresCatalog({ connectionString: POSTGRES_URL, schema, now });
    dropSchema = async () => {
      await catalog.database.db.schema.dropSchema(schema).ifExists().cascade().execute();
    };
  }
  const store = createFileStore({
    blobs: createLocalBlobDriver({ root: join(dir, 'blobs') }),
    catalog,
    config: loadStorageConfig({ file: { dataDir: dir }, env: {} }),
    tokens: createTokenSigner({ keys: [{ id: 'k', secret: 'k'.repeat(32) }], activeKeyId: 'k' }),
    now,
  });
  const sweeps = new EventEmitter();
  // The real FileStore; its sweep reports when it has run, so the test can wait for it.
  const files: FileStore = {
    ...store,
    sweep: async () => {
      const result = await store.sweep();
      sweeps.emit('sweep', result);
      return result;
    },
  };
  let url = '';
  const host: Host = createHost({
    config: { servers: {} },
    files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `${url}/api/files/${id}/content?token=${token}`,
  });
  const app: FastifyInstance = buildApp({
    files,
    host,
    config: defaultAppConfig({ maintenance: { fileSweepMinutes: FILE_SWEEP_MINUTES } }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    files,
    clock,
    sweeps,
    close: async () => {
      await app.close();
      await host.close();
      await dropSchema();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The next sweep that satisfies `accept`, or a failure after `timeoutMs`. */
async function sweepWhere(
  sweeps: EventEmitter,
  accept: (result: SweepResult) => boolean,
  timeoutMs = 10_000,
): Promise<SweepResult> {
  for await (const [result] of on(sweeps, 'sweep', { signal: AbortSignal.timeout(timeoutMs) })) {
    if (accept(result as SweepResult)) return result as SweepResult;
  }
  throw new Error('the sweep events ended');
}

const dialects = (process.env.FERRY_TEST_DIALECTS ?? '')
  .split(',')
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialects.length > 0 && !dialects.includes(dialect))(
    `a deferred file with a one-second expiry, on ${dialect} (FERRY_TEST_DIALECTS)`,
    () => {
      let f: Running;
      beforeAll(async () => {
        f = await startFerry(dialect);
      }, 30_000);
      afterAll(async () => f?.close());

      it('is everywhere before its second has passed and nowhere after; the sweep only reclaims it', async () => {
        const owner = await f.files.ensureUser('dev');
        const kept = await uploadOk(f.url, 'kept.csv', 'k,v\n1,2\n');
        // As the host stores a tool's deferred artifact (v2.1 §7), one second from now.
        const draft = await f.files.put(owner, 'draft.md', Readable.from([Buffer.from('# draft\n')]), {
          source: 'deferred',
          mime: 'text/markdown',
          description: 'awaiting approval',
          expiresAt: new Date(f.clock.now.getTime() + 1000),
        });
        const token = f.files.signDownload(owner, draft.id);
        const listed = async () =>
          (await http(f.url, '/api/files')).json<{ items: FileJson[] }>().items.map((file) => file.name);
        const block = () => buildFileBlock(f.files, owner);

        f.clock.now = new Date(f.clock.now.getTime() + 999);
        expect(await listed()).toEqual(['draft.md', 'kept.csv']);
        expect((await http(f.url, `/api/files/${draft.id}/content`)).text).toBe('# draft\n');
        expect((await http(f.url, `/api/files/${draft.id}/content?token=${token}`)).status).toBe(200);
        expect((await http(f.url, `/api/files/${draft.id}`)).status).toBe(200);
        expect((await f.files.resolve(owner, 'draft.md'))?.id).toBe(draft.id);
        expect(await block()).toContain('draft.md');

        f.clock.now = new Date(f.clock.now.getTime() + 1);
        expect(await listed()).toEqual(['kept.csv']);
        expect((await http(f.url, '/api/files?q=draft')).json()).toMatchObject({ items: [], total: 0 });
        for (const path of [
          `/api/files/${draft.id}/content`,
          `/api/files/${draft.id}/content?token=${token}`,
          `/api/files/${draft.id}`,
          `/api/files/${draft.id}/versions`,
        ]) {
          const gone = await http(f.url, path);
          expect(gone.status, path).toBe(404);
          expect(gone.json(), path).toMatchObject({ meta_data: { error_code: 'E_FILE_NOT_FOUND' } });
        }
        // Name resolution (tool arguments, the CLI's `files get <name>`): not found, as any name.
        expect(await f.files.resolve(owner, 'draft.md')).toBeUndefined();
        await expect(f.files.stat(owner, { name: 'draft.md' })).rejects.toMatchObject({
          code: 'E_FILE_NOT_FOUND',
        });
        const prompt = await block();
        expect(prompt).toContain('kept.csv');
        expect(prompt).not.toContain('draft.md');

        // The row is still there until a sweep reclaims it (one waits for the clock to be past).
        expect((await f.files.stats()).files).toBe(2);
        f.clock.now = new Date(f.clock.now.getTime() + 1);
        await sweepWhere(f.sweeps, (result) => result.expired === 1);
        expect((await f.files.stats()).files).toBe(1);
        expect((await http(f.url, `/api/files/${kept.id}/content`)).text).toBe('k,v\n1,2\n');
      });

      it('sweeps every maintenance.fileSweepMinutes, not every 15th tick', async () => {
        // The first sweep runs when Ferry starts listening; two more follow 600 ms apart.
        const started = performance.now();
        await sweepWhere(f.sweeps, () => true);
        await sweepWhere(f.sweeps, () => true);
        expect(performance.now() - started).toBeLessThan(5_000);
      });
    },
  );
}
