// Generated /etc files a sandbox sees instead of the host's: passwd and group name the sandbox
// user (as the Ferry username, home /tmp/<user>) and nothing else of the host's accounts;
// resolv.conf points at the user-mode network stack's DNS forwarder. Written once per user under
// `<stateDir>/<user>/`, a directory the tools never see, and rewritten when the content changes.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDBOX_DNS } from './sandbox-network.js';

/** The launcher's default stateDir, inside the workspaces root (not a valid username: never a workspace). */
export const SANDBOX_STATE_DIR = '.ferry-sandbox';

export interface SandboxEtcFiles {
  passwd: string;
  group: string;
  resolvConf: string;
}

export async function writeSandboxEtc(
  stateDir: string,
  username: string,
  identity: { uid: number; gid: number },
): Promise<SandboxEtcFiles> {
  const dir = join(stateDir, username);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const { uid, gid } = identity;
  const passwd = [
    'root:x:0:0:root:/nonexistent:/usr/sbin/nologin',
    `${username}:x:${uid}:${gid}:Ferry sandbox:/tmp/${username}:/bin/sh`,
    ...(uid === 65534 ? [] : ['nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin']),
  ];
  const group = ['root:x:0:', `${username}:x:${gid}:`, ...(gid === 65534 ? [] : ['nogroup:x:65534:'])];
  const files: SandboxEtcFiles = {
    passwd: join(dir, 'passwd'),
    group: join(dir, 'group'),
    resolvConf: join(dir, 'resolv.conf'),
  };
  await writeIfChanged(files.passwd, `${passwd.join('\n')}\n`);
  await writeIfChanged(files.group, `${group.join('\n')}\n`);
  await writeIfChanged(files.resolvConf, `nameserver ${SANDBOX_DNS}\n`);
  return files;
}

async function writeIfChanged(path: string, content: string): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => undefined)) === content) return;
  // Another launch of the same user may be reading it: replace, never truncate in place.
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(temp, content, { mode: 0o644 });
  await rename(temp, path);
}
