// A real FileStore (local blobs + SQLite) in a temp dir, one user, and helpers to put and read
// files by content, so tests check bytes by sha256 in My Files.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  type FileRecord,
  type FileStore,
  loadStorageConfig,
  openStorage,
  type PutOptions,
  type StorageConfigInput,
} from '@ferry/storage';
import { createWorkspaces, type Workspaces } from '../../../src/workspace/workspaces.js';

export interface TestStorage {
  dir: string;
  files: FileStore;
  owner: string;
  username: string;
  workspaceRoot: string;
  workspaces: Workspaces;
  put(name: string, content: string | Buffer, options?: PutOptions): Promise<FileRecord>;
  read(id: string): Promise<Buffer>;
  close(): Promise<void>;
}

export async function openTestStorage(
  config: StorageConfigInput = {},
  username = 'alice',
): Promise<TestStorage> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-host-'));
  const storage = await openStorage(
    loadStorageConfig({ file: config, env: { FERRY_DATA_DIR: join(dir, 'data') } }),
  );
  const files = storage.files;
  const owner = await files.ensureUser(username);
  const workspaceRoot = join(dir, 'workspaces');
  return {
    dir,
    files,
    owner,
    username,
    workspaceRoot,
    workspaces: createWorkspaces({ root: workspaceRoot }),
    put: (name, content, options) => files.put(owner, name, Readable.from([Buffer.from(content)]), options),
    read: async (id) => {
      const { stream } = await files.get(owner, { id });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    close: async () => {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
