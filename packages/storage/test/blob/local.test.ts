import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobDriver } from '../../src/blob/driver.js';
import { createLocalBlobDriver, type LocalBlobDriverOptions } from '../../src/blob/local.js';
import { killHard, spawnCrashWriter } from '../support/spawn-crash-writer.js';
import {
  createControlledStream,
  pseudoRandomBytes,
  readAll,
  sha256,
  streamOfBuffer,
} from '../support/streams.js';
import { describeBlobDriver, INVALID_KEYS } from './driver-suite.js';

async function makeRoot(): Promise<{ parent: string; root: string }> {
  const parent = await mkdtemp(join(tmpdir(), 'ferry-local-blob-'));
  return { parent, root: join(parent, 'blobs') };
}

describeBlobDriver('local', async () => {
  const { parent, root } = await makeRoot();
  return {
    driver: createLocalBlobDriver({ root }),
    cleanup: () => rm(parent, { recursive: true, force: true }),
  };
});

describe('local blob driver', () => {
  let parent: string;
  let root: string;
  let driver: BlobDriver;
  const tempFiles = async () => readdir(join(root, '.tmp')).catch(() => []);

  beforeEach(async () => {
    ({ parent, root } = await makeRoot());
    driver = createLocalBlobDriver({ root });
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('requires the root option and names driver and option', () => {
    expect(() => createLocalBlobDriver({} as LocalBlobDriverOptions)).toThrow(
      '[ferry/storage] [local] option "root" is required',
    );
    expect(() => createLocalBlobDriver({ root: '' })).toThrow('option "root" is required');
  });

  it('stores the blob at <root>/<key> with mode 0600 under 0700 directories', async () => {
    await driver.put('users/u1/f1', streamOfBuffer(Buffer.from('hello')));
    expect((await stat(join(root, 'users', 'u1', 'f1'))).mode & 0o777).toBe(0o600);
    for (const dir of [root, join(root, 'users'), join(root, 'users', 'u1'), join(root, '.tmp')]) {
      expect((await stat(dir)).mode & 0o777, dir).toBe(0o700);
    }
  });

  it('writes into .tmp/ during a put and renames onto the key at the end', async () => {
    const input = createControlledStream();
    const putting = driver.put('users/u1/f1', input.stream);
    input.push(pseudoRandomBytes(256 * 1024, 31));
    await input.pulled();
    const [temp] = await tempFiles();
    expect(temp).toMatch(/\.part$/);
    expect((await stat(join(root, '.tmp', temp as string))).mode & 0o777).toBe(0o600);
    await expect(stat(join(root, 'users', 'u1', 'f1'))).rejects.toMatchObject({ code: 'ENOENT' });
    input.end();
    await putting;
    expect(await tempFiles()).toEqual([]);
  });

  it('removes the temp file when the input fails or the put is aborted', async () => {
    const failing = createControlledStream();
    const failed = driver.put('users/u1/f1', failing.stream);
    failing.push(pseudoRandomBytes(256 * 1024, 32));
    await failing.pulled();
    expect(await tempFiles()).toHaveLength(1);
    failing.fail(new Error('broken'));
    await expect(failed).rejects.toThrow('broken');
    expect(await tempFiles()).toEqual([]);

    const aborting = createControlledStream();
    const controller = new AbortController();
    const aborted = driver.put('users/u1/f1', aborting.stream, { signal: controller.signal });
    aborting.push(pseudoRandomBytes(256 * 1024, 33));
    await aborting.pulled();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(await tempFiles()).toEqual([]);
  });

  it('never writes outside the root for traversal keys', async () => {
    for (const key of INVALID_KEYS) {
      await driver.put(key as string, streamOfBuffer(Buffer.from('evil'))).catch(() => undefined);
    }
    // Keys are refused before any mkdir, so not even the root exists yet.
    expect(await readdir(parent)).toEqual([]);
  });

  it('treats a key that names a directory of blobs as no blob', async () => {
    await driver.put('users/u1/f1', streamOfBuffer(Buffer.from('x')));
    expect(await driver.stat('users/u1')).toBeNull();
    await expect(driver.get('users/u1')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(driver.delete('users/u1')).resolves.toBeUndefined();
    expect(await readAll(await driver.get('users/u1/f1'))).toEqual(Buffer.from('x'));
  });

  describe('sweepPartials', () => {
    it('removes temp files older than the threshold and keeps newer ones and foreign files', async () => {
      await mkdir(join(root, '.tmp'), { recursive: true });
      const old = join(root, '.tmp', 'old.part');
      const fresh = join(root, '.tmp', 'fresh.part');
      const foreign = join(root, '.tmp', 'README');
      await Promise.all([writeFile(old, 'x'), writeFile(fresh, 'y'), writeFile(foreign, 'z')]);
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      await utimes(old, twoHoursAgo, twoHoursAgo);
      expect(await driver.sweepPartials?.(3600_000)).toBe(1);
      expect((await tempFiles()).sort()).toEqual(['README', 'fresh.part']);
      expect(await driver.sweepPartials?.(0)).toBe(1);
      expect(await tempFiles()).toEqual(['README']);
    });

    it('returns 0 before any put and never removes the temp file of a running put', async () => {
      expect(await driver.sweepPartials?.(0)).toBe(0);
      const input = createControlledStream();
      const putting = driver.put('users/u1/f1', input.stream);
      const bytes = pseudoRandomBytes(256 * 1024, 34);
      input.push(bytes);
      await input.pulled();
      expect(await driver.sweepPartials?.(0)).toBe(0);
      input.end();
      await expect(putting).resolves.toEqual({ size: bytes.length });
      expect(sha256(await readAll(await driver.get('users/u1/f1')))).toBe(sha256(bytes));
    });
  });

  it('a writer killed mid-put (SIGKILL) leaves the previous blob and only a temp file, which sweepPartials removes', async () => {
    const previous = pseudoRandomBytes(100_000, 35);
    await driver.put('users/u1/crash', streamOfBuffer(previous));

    const child = await spawnCrashWriter(['blob', root, 'users/u1/crash']);
    try {
      const [temp] = await tempFiles();
      expect(temp).toBeDefined();
      expect((await stat(join(root, '.tmp', temp as string))).size).toBeGreaterThanOrEqual(1024 * 1024);
    } finally {
      await killHard(child);
    }
    expect(child.signalCode).toBe('SIGKILL');

    expect(await driver.stat('users/u1/crash')).toEqual({ size: previous.length });
    expect(sha256(await readAll(await driver.get('users/u1/crash')))).toBe(sha256(previous));
    expect(await tempFiles()).toHaveLength(1);
    expect(await driver.sweepPartials?.(0)).toBe(1);
    expect(await tempFiles()).toEqual([]);
    expect(await readdir(join(root, 'users', 'u1'))).toEqual(['crash']);
  });
});
