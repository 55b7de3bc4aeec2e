// One Ferry per data directory. Two instances on the same directory would each believe they own
// it: each sweeps "crash leftovers" the other is still writing, empties workspaces whose sessions
// live in the other, and (SQLite) shares a catalog meant for one writer. Several instances are
// scale mode's job: a PostgreSQL catalog and S3 blobs, each instance with its own data directory.
//
// The lock is SQLite's own exclusive lock on `<dataDir>/ferry.lock` (a POSIX record lock), held
// for as long as the connection is open: the kernel drops it when the process dies, however it
// dies, so there is no stale lock to judge by a pid that may have been reused. SQLite also tracks
// locks per file inside one process, so a second open from the same process is refused too.
// Who holds it (pid, address) is written beside it in `ferry.lock.json`, for the message only.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import Database from 'better-sqlite3';

export const DATA_DIR_LOCK_FILE = 'ferry.lock';
export const DATA_DIR_LOCK_INFO_FILE = 'ferry.lock.json';

export interface DataDirLockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Where that instance listens, once it does. */
  url?: string;
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Records where this instance listens, for the message a second instance gets. */
  setUrl(url: string): void;
  /** Idempotent. The process ending releases it too. */
  release(): void;
}

/**
 * Every held lock's connection. better-sqlite3 closes a connection that is garbage collected,
 * which would drop the lock while the instance still runs, if its caller kept no reference.
 */
const HELD = new Set<Database.Database>();

export function lockDataDir(dataDir: string, options: { now?: () => Date } = {}): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const infoPath = join(dataDir, DATA_DIR_LOCK_INFO_FILE);
  // timeout 0: a held lock is an answer, not something to wait for.
  const db = new Database(join(dataDir, DATA_DIR_LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // In exclusive locking mode the lock taken by the first write is kept until the connection
    // closes. The transaction writes (user_version) so the lock is one SQLite documents as kept,
    // not one that depends on how an empty transaction ends.
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw inUse(dataDir, readHolder(infoPath));
    throw error;
  }
  const holder: DataDirLockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: (options.now?.() ?? new Date()).toISOString(),
  };
  HELD.add(db);
  const write = () => writeFileSync(infoPath, `${JSON.stringify(holder)}\n`);
  write();
  let released = false;
  return {
    dataDir,
    setUrl(url) {
      if (released) return;
      holder.url = url;
      write();
    },
    release() {
      if (released) return;
      released = true;
      // The note first: once the lock is gone another instance may write its own.
      rmSync(infoPath, { force: true });
      HELD.delete(db);
      db.close();
    },
  };
}

function readHolder(path: string): DataDirLockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<DataDirLockHolder>;
    return typeof parsed.pid === 'number' ? (parsed as DataDirLockHolder) : undefined;
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, holder: DataDirLockHolder | undefined): FerryError {
  const who = holder
    ? `another Ferry (pid ${holder.pid}${holder.hostname !== hostname() ? ` on ${holder.hostname}` : ''}${holder.url ? `, ${holder.url}` : ', still starting'}, since ${holder.startedAt})`
    : 'another Ferry';
  return new FerryError(
    'E_CONFLICT',
    `The data directory ${dataDir} is in use by ${who}. Stop that one first, or start this one with its own data directory (FERRY_DATA_DIR or storage.dataDir). To run several instances on the same files, use scale mode: a PostgreSQL catalog (FERRY_DATABASE_URL) and S3 blobs (FERRY_S3_*), each instance with its own data directory.`,
    { field: 'storage.dataDir', data_dir: dataDir, ...(holder ? { pid: holder.pid, url: holder.url } : {}) },
  );
}
