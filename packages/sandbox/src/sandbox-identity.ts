// As whom sandboxed tools run on the host. Never a uid that is host root:
//   Ferry is root      a dedicated unprivileged host user: `runAs` (a user name or "uid:gid"),
//                      else the system user `ferry-sandbox`, found or created (useradd --system),
//                      else nobody/nogroup. bwrap mounts as root, setpriv then becomes that user.
//   Ferry is not root  a user namespace maps the sandbox user to Ferry's own uid: there is no
//                      other uid Ferry could switch to. `runAs` naming another user is refused.
import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

const SANDBOX_SYSTEM_USER = 'ferry-sandbox';
const NOBODY = { name: 'nobody', uid: 65534, gid: 65534 };

export interface SandboxIdentity {
  kind: 'setpriv' | 'userns';
  /** Host uid and gid the tools run as. */
  uid: number;
  gid: number;
  /** The host user's name (for logs and the status). */
  name: string;
  /** How it was chosen, for the startup summary. */
  source: 'runAs' | 'system-user' | 'created' | 'nobody' | 'ferry';
}

/** `runAs` as the config gives it: a user name, "uid:gid", or { uid, gid }. */
export type RunAs = string | { uid: number; gid: number };

/** Parses and checks `runAs` without looking anything up; throws on a value that could map to root. */
export function checkRunAs(runAs: RunAs | undefined): void {
  if (runAs === undefined) return;
  if (typeof runAs === 'object') {
    for (const key of ['uid', 'gid'] as const) {
      const value = runAs[key];
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new Error(
          `[ferry/sandbox] runAs.${key} must be a positive integer (never 0, root), got ${value}`,
        );
      }
    }
    return;
  }
  if (typeof runAs !== 'string' || runAs === '')
    throw new Error('[ferry/sandbox] runAs must be a user name or "uid:gid"');
  const numeric = /^(\d+):(\d+)$/.exec(runAs);
  if (numeric) checkRunAs({ uid: Number(numeric[1]), gid: Number(numeric[2]) });
  else if (runAs === 'root') throw new Error('[ferry/sandbox] runAs cannot be root');
}

export async function resolveSandboxIdentity(runAs?: RunAs): Promise<SandboxIdentity> {
  checkRunAs(runAs);
  const me = process.getuid?.();
  if (me !== 0) {
    const info = userInfo();
    if (runAs !== undefined) {
      const wanted = await lookUpRunAs(runAs);
      if (wanted.uid !== info.uid) {
        throw new Error(
          `[ferry/sandbox] runAs ${describe(runAs)} needs Ferry to run as root; Ferry runs as ${info.username} (uid ${info.uid}), so tools run as that uid. Remove sandbox.runAs or start Ferry as root.`,
        );
      }
    }
    return {
      kind: 'userns',
      uid: info.uid,
      gid: process.getgid?.() ?? info.gid,
      name: info.username,
      source: 'ferry',
    };
  }
  if (runAs !== undefined) {
    const found = await lookUpRunAs(runAs);
    if (found.uid === 0 || found.gid === 0)
      throw new Error(`[ferry/sandbox] runAs ${describe(runAs)} is root`);
    return { kind: 'setpriv', ...found, source: 'runAs' };
  }
  const existing = await passwdEntry(SANDBOX_SYSTEM_USER);
  if (existing) return { kind: 'setpriv', ...existing, source: 'system-user' };
  // Two Ferry processes may race here; whoever loses finds the user the other made.
  const made = await run('useradd', [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    '/nonexistent',
    '--shell',
    '/usr/sbin/nologin',
    '--comment',
    'Ferry sandboxed MCP servers',
    SANDBOX_SYSTEM_USER,
  ]).then(
    () => true,
    () => false,
  );
  const created = await passwdEntry(SANDBOX_SYSTEM_USER);
  if (created && created.uid !== 0 && created.gid !== 0) {
    return { kind: 'setpriv', ...created, source: made ? 'created' : 'system-user' };
  }
  const nobody = (await passwdEntry('nobody')) ?? NOBODY;
  const nogroup = await groupId('nogroup');
  return { kind: 'setpriv', ...nobody, ...(nogroup === undefined ? {} : { gid: nogroup }), source: 'nobody' };
}

async function lookUpRunAs(runAs: RunAs): Promise<{ name: string; uid: number; gid: number }> {
  if (typeof runAs === 'object') return { name: String(runAs.uid), ...runAs };
  const numeric = /^(\d+):(\d+)$/.exec(runAs);
  if (numeric) return { name: runAs, uid: Number(numeric[1]), gid: Number(numeric[2]) };
  const entry = await passwdEntry(runAs);
  if (!entry) throw new Error(`[ferry/sandbox] runAs: there is no user "${runAs}" on this host`);
  return entry;
}

function describe(runAs: RunAs): string {
  return typeof runAs === 'object' ? `${runAs.uid}:${runAs.gid}` : `"${runAs}"`;
}

async function passwdEntry(name: string): Promise<{ name: string; uid: number; gid: number } | undefined> {
  const found = await run('getent', ['passwd', name]).catch(() => undefined);
  const fields = found?.stdout.trim().split(':');
  if (!fields || fields.length < 4) return undefined;
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  return Number.isSafeInteger(uid) && Number.isSafeInteger(gid)
    ? { name: fields[0] ?? name, uid, gid }
    : undefined;
}

async function groupId(name: string): Promise<number | undefined> {
  const found = await run('getent', ['group', name]).catch(() => undefined);
  const gid = Number(found?.stdout.split(':')[2]);
  return Number.isSafeInteger(gid) && found ? gid : undefined;
}
