// What of the host every sandbox sees: the allow-list. Programs need their loader, libraries and
// the few /etc files that libc, OpenSSL and the time functions read; nothing else of the host is
// mounted. Each entry is looked up on the host when a launcher is made: a directory is bound
// read-only, a symbolic link (merged /usr: /bin -> usr/bin) is made again as a link, and what does
// not exist is left out.
import { lstat, readlink } from 'node:fs/promises';

/** Top-level system directories, read-only. */
export const SYSTEM_DIRS: readonly string[] = Object.freeze([
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
]);

/** From /etc, only what programs read to run: the loader cache, certificates, time zone, NSS. */
export const ETC_ENTRIES: readonly string[] = Object.freeze([
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/nsswitch.conf',
  '/etc/mime.types',
]);

/** Only with the network: name resolution. resolv.conf is generated (see sandbox-etc.ts). */
export const NETWORK_ETC_ENTRIES: readonly string[] = Object.freeze([
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
]);

/**
 * Directories that are never bound whole, whatever a server's program or config asks: they hold
 * other users' homes, Ferry's and other services' state, or the whole host.
 */
export const NEVER_BOUND: readonly string[] = Object.freeze([
  '/',
  '/root',
  '/home',
  '/var',
  '/var/lib',
  '/srv',
  '/etc',
  '/tmp',
  '/var/tmp',
  '/opt',
  '/mnt',
  '/media',
  '/run',
  '/proc',
  '/sys',
  '/dev',
  '/boot',
]);

/** One host path as the sandbox shows it. */
export type SystemMount = { kind: 'bind'; path: string } | { kind: 'symlink'; path: string; target: string };

/** The mounts for `paths` on this host: existing directories and files bound, links made again. */
export async function systemMounts(paths: readonly string[]): Promise<SystemMount[]> {
  const mounts: SystemMount[] = [];
  for (const path of paths) {
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) {
      const target = await readlink(path);
      // A relative link inside a bound tree (bin -> usr/bin) resolves inside too; an absolute
      // one (localtime -> /usr/share/zoneinfo/…) as well, since /usr is bound. Anything else
      // is bound as what it points at.
      if (!target.startsWith('/') || target.startsWith('/usr/')) {
        mounts.push({ kind: 'symlink', path, target });
        continue;
      }
    }
    mounts.push({ kind: 'bind', path });
  }
  return mounts;
}

/** Whether `path` is `root` or lies below it (both absolute, normalized). */
export function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

export function isUnderAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isUnder(path, root));
}

/** Whether `path` lies in one of the system directories (already visible, read-only). */
export function isSystemPath(path: string): boolean {
  return SYSTEM_DIRS.some((dir) => dir !== '/' && isUnder(path, dir));
}
