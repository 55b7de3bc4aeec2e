// "Its own program": what of the host a server's command needs besides the system directories,
// found before the launch so the sandbox can bind exactly that (read-only) and say in one line
// what is missing when something is. Followed:
//   - the command, looked up in PATH like execvp does, and every symbolic link on the way to the
//     real file (a virtualenv's bin/python -> the interpreter it was made from);
//   - a `#!` line, with `/usr/bin/env name` looked up in PATH again (four levels at most);
//   - a virtualenv's pyvenv.cfg `home`, where the interpreter's standard library lives;
//   - arguments naming an existing file or directory (a script, a package), and the cwd. An
//     argument that names a script by its extension (`src/nope.ts`, `server.py`) must exist: a
//     misspelt script is said here, in one line, not by the interpreter's stack trace on stderr.
// Each path found is bound as its package tree: the highest directory above it holding a package
// marker (package.json, node_modules, pyvenv.cfg, pyproject.toml, setup.py, .git), so hoisted
// node_modules and workspace links resolve; else an install prefix (the parent of bin/); else its
// own directory. Never one of the directories that hold other users' or the host's state
// (NEVER_BOUND, home directories): a path found there is bound alone.
import { constants } from 'node:fs';
import { access, lstat, open, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { isSystemPath, isUnderAny, NEVER_BOUND } from './system-paths.js';

export interface ProgramQuery {
  command: string;
  args: readonly string[];
  /** The server's working directory on the host; undefined: the workspace. */
  cwd?: string;
  /** The PATH the server gets. */
  path: string;
  /**
   * false: the program runs unsandboxed, as Ferry's own user; only whether it can start is
   * checked, not what a sandbox could show of it. @default true
   */
  sandboxed?: boolean;
}

export interface ProgramPaths {
  /** The command as found (absolute, links not resolved, so argv[0] keeps its name). */
  executable: string;
  /** The files the program needs to read: the command, its interpreters, path arguments (real paths). */
  files: string[];
  /** Host paths to bind read-only at the same place, real paths, no one inside another. */
  roots: string[];
}

/** Why a server cannot start, in one line that names the path. */
export class ProgramNotFound extends Error {
  override name = 'ProgramNotFound';
}

/**
 * An argument naming a program file by its extension: it must exist. Other arguments that name no
 * existing path (a module name such as `tsx`, an output file the server creates) are left alone.
 */
const SCRIPT_FILE = /^[^:=]*\.(?:[cm]?[jt]s|[jt]sx|py|pyw|pyz|rb|pl|php|sh|bash|lua|jar)$/i;
const MARKERS = ['package.json', 'node_modules', 'pyvenv.cfg', 'pyproject.toml', 'setup.py', '.git'];
const MAX_INTERPRETERS = 4;
const MAX_LINKS = 40;

export async function findProgramPaths(query: ProgramQuery): Promise<ProgramPaths> {
  const roots = new Set<string>();
  const files = new Set<string>();
  const never = neverBound();
  const addRoot = async (path: string, isDir: boolean) => {
    if (isSystemPath(path)) return;
    roots.add(await packageRoot(path, isDir, never));
  };

  const followFile = async (path: string, what: string): Promise<string> => {
    let current = path;
    for (let hop = 0; ; hop++) {
      const stats = await lstat(current).catch(() => undefined);
      if (stats === undefined) {
        throw new ProgramNotFound(
          current === path
            ? `${what} ${path} does not exist`
            : `${what} ${path} points to ${current}, which does not exist`,
        );
      }
      await addRoot(current, stats.isDirectory());
      if (!stats.isSymbolicLink()) break;
      if (hop >= MAX_LINKS) throw new ProgramNotFound(`${what} ${path}: too many symbolic links`);
      current = resolve(dirname(current), await readlink(current));
    }
    const real = await realpath(current);
    files.add(real);
    return real;
  };

  const followProgram = async (path: string, what: string, depth: number): Promise<void> => {
    const real = await followFile(path, what);
    await addVenvHome(path, addRoot);
    const shebang = await readShebang(real);
    if (shebang === undefined) return;
    if (depth >= MAX_INTERPRETERS) throw new ProgramNotFound(`${path}: too many nested #! interpreters`);
    let interpreter = shebang.interpreter;
    if (basename(interpreter) === 'env' && shebang.argument) {
      const name = shebang.argument.split(/\s+/).find((word) => !word.startsWith('-'));
      if (name === undefined) return;
      const found = await lookUp(name, query.path, query.cwd);
      if (found === undefined) {
        throw new ProgramNotFound(`${path} runs "${name}" (#!), which is not in PATH (${query.path})`);
      }
      interpreter = found;
    }
    await followProgram(interpreter, `the interpreter of ${path}`, depth + 1);
  };

  const executable = await lookUp(query.command, query.path, query.cwd);
  if (executable === undefined && query.command.includes('/')) {
    // Which link of the chain points nowhere, when one does.
    const path = resolve(query.cwd ?? '/', query.command);
    await followFile(path, 'command');
    throw new ProgramNotFound(`command ${path} is not an executable file`);
  }
  if (executable === undefined) {
    throw new ProgramNotFound(`command "${query.command}" was not found in PATH (${query.path})`);
  }
  await followProgram(executable, 'command', 0);

  if (query.cwd !== undefined) {
    const stats = await stat(query.cwd).catch(() => undefined);
    if (!stats?.isDirectory()) throw new ProgramNotFound(`cwd ${query.cwd} is not a directory`);
    // `/` and `/tmp` exist inside anyway; the other never-bound directories do not.
    if (query.sandboxed !== false && never.includes(query.cwd) && query.cwd !== '/' && query.cwd !== '/tmp') {
      throw new ProgramNotFound(
        `cwd ${query.cwd} is never shown inside the sandbox; set the server's cwd to its own directory`,
      );
    }
    if (!never.includes(query.cwd)) await addRoot(await realpath(query.cwd), true);
  }
  for (const arg of query.args) {
    const candidate = pathArgument(arg, query.cwd);
    if (candidate === undefined || never.includes(candidate)) continue;
    const stats = await lstat(candidate).catch(() => undefined);
    if (stats === undefined) {
      if (SCRIPT_FILE.test(arg)) throw new ProgramNotFound(`script ${candidate} does not exist`);
      continue;
    }
    await followFile(candidate, 'argument');
  }
  return { executable, files: [...files], roots: outermost([...roots]) };
}

/**
 * The first path the sandbox user could not reach: a file it cannot read, or a directory between
 * the bound root and the file it cannot enter (mode bits as the kernel checks them for that uid
 * and gid). Above a bound root the sandbox has directories of its own (0755).
 */
export async function unreadableBy(
  paths: readonly string[],
  roots: readonly string[],
  who: { uid: number; gid: number },
): Promise<{ path: string; why: string } | undefined> {
  const allowed = (stats: { uid: number; gid: number; mode: number }, bit: number) =>
    stats.uid === who.uid
      ? (stats.mode & (bit << 6)) !== 0
      : stats.gid === who.gid
        ? (stats.mode & (bit << 3)) !== 0
        : (stats.mode & bit) !== 0;
  const describe = (stats: { uid: number; mode: number }) =>
    `mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}, owner uid ${stats.uid}`;
  for (const path of paths) {
    const root = roots
      .filter((candidate) => path === candidate || path.startsWith(`${candidate}/`))
      .sort((a, b) => b.length - a.length)[0];
    if (root === undefined) continue;
    const chain: string[] = [];
    for (let dir = dirname(path); dir.length >= root.length; dir = dirname(dir)) {
      chain.unshift(dir);
      if (dir === root || dirname(dir) === dir) break;
    }
    for (const dir of chain) {
      const stats = await stat(dir).catch(() => undefined);
      if (stats && !allowed(stats, 1))
        return { path: dir, why: `the directory cannot be entered (${describe(stats)})` };
    }
    const stats = await stat(path).catch(() => undefined);
    if (stats && !allowed(stats, 4)) return { path, why: `the file cannot be read (${describe(stats)})` };
  }
  return undefined;
}

/** A path-looking argument, absolute. `--flag=value` forms are left alone (their value may be anything). */
function pathArgument(arg: string, cwd: string | undefined): string | undefined {
  if (arg === '' || arg.startsWith('-') || arg.includes('\0')) return undefined;
  if (isAbsolute(arg)) return resolve(arg);
  if (cwd === undefined) return undefined;
  return resolve(cwd, arg);
}

/** The host directories never bound whole: NEVER_BOUND, every home directory and Ferry's HOME. */
function neverBound(): string[] {
  const list = [...NEVER_BOUND];
  const home = homedir();
  if (home && home !== '/') list.push(resolve(home));
  return list;
}

function isHomeDirectory(path: string): boolean {
  return /^\/home\/[^/]+$/.test(path);
}

/** The package tree `path` belongs to (see the header); never a NEVER_BOUND directory or a home. */
async function packageRoot(path: string, isDir: boolean, never: readonly string[]): Promise<string> {
  const start = isDir ? path : dirname(path);
  const forbidden = (dir: string) => never.includes(dir) || isHomeDirectory(dir);
  if (forbidden(start)) return path;
  let best: string | undefined;
  for (let dir = start; !forbidden(dir); dir = dirname(dir)) {
    if (await hasMarker(dir)) best = dir;
    if (dirname(dir) === dir) break;
  }
  if (best !== undefined) return best;
  if (!isDir && ['bin', 'sbin'].includes(basename(start)) && !forbidden(dirname(start)))
    return dirname(start);
  return start;
}

async function hasMarker(dir: string): Promise<boolean> {
  for (const marker of MARKERS) {
    if (
      await lstat(join(dir, marker)).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** A virtualenv's interpreter runs with the standard library of pyvenv.cfg's `home`. */
async function addVenvHome(path: string, addRoot: (path: string, isDir: boolean) => Promise<void>) {
  const binDir = dirname(path);
  if (basename(binDir) !== 'bin' && basename(binDir) !== 'Scripts') return;
  const config = await readFile(join(dirname(binDir), 'pyvenv.cfg'), 'utf8').catch(() => undefined);
  const home = config && /^\s*home\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
  if (!home || !isAbsolute(home)) return;
  const real = await realpath(home).catch(() => undefined);
  if (real === undefined)
    throw new ProgramNotFound(`${path}: pyvenv.cfg names home ${home}, which does not exist`);
  // home is the interpreter's bin/: its prefix holds lib/pythonX.Y.
  await addRoot(basename(real) === 'bin' ? dirname(real) : real, true);
}

/** `name` in Ferry's PATH, then the system directories (helpers such as ip live in /usr/sbin). */
export function findExecutable(name: string): Promise<string | undefined> {
  const path = [process.env.PATH ?? '', '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'].join(
    delimiter,
  );
  return lookUp(name, path);
}

/** `name` as execvp finds it: as given when it has a slash (relative to cwd), else the first in PATH. */
async function lookUp(name: string, path: string, cwd?: string): Promise<string | undefined> {
  const candidates = name.includes('/')
    ? [resolve(cwd ?? '/', name)]
    : path
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    const ok = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok && (await stat(candidate)).isFile()) return candidate;
  }
  return undefined;
}

async function readShebang(file: string): Promise<{ interpreter: string; argument?: string } | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    if (!head.startsWith('#!')) return undefined;
    const line = head.slice(2).split('\n', 1)[0]?.trim() ?? '';
    const [interpreter, ...rest] = line.split(/\s+/);
    if (!interpreter || !isAbsolute(interpreter)) return undefined;
    const argument = rest.join(' ');
    return argument ? { interpreter, argument } : { interpreter };
  } finally {
    await handle.close();
  }
}

/** Drops paths that lie inside another one of the list. */
function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) if (!isUnderAny(path, kept)) kept.push(path);
  return kept;
}
