import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** Real path (no symlinks), so tests can compare paths exactly. */
  path: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'ferry-server-kit-'): Promise<TempDir> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
