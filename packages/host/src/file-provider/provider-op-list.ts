// list_directory and find_files: one breadth-first walk over the workspace (and, at its root,
// the virtual My Files tree), stopping as soon as the cap is reached. Each directory is opened
// without following a link and checked through /proc/self/fd before it is read, so a directory
// swapped for a link cannot make a listing show what lies outside. Links are listed as entries
// and never descended into; blocked paths are neither listed nor walked.
import type { Dir, Dirent } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open, opendir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import {
  acceptPath,
  type OperationContext,
  type OperationOutcome,
  resolveWorkspacePath,
} from './provider-op-context.js';
import { notADirectory, notFound, permissionDenied, providerError } from './provider-op-errors.js';
import { resolveInWorkspace } from './provider-path-resolve.js';
import {
  checkProviderPolicy,
  MY_FILES_DIR_NAME,
  MY_FILES_SOURCES,
  parseProviderPath,
  providerRoot,
} from './provider-paths.js';
import type { ProviderToolArgs } from './provider-tool-definitions.js';

interface WalkOptions {
  recursive: boolean;
  cap: number;
  /** find_files: regular files (and links to files inside the workspace) only. */
  filesOnly: boolean;
  match: (name: string) => boolean;
}

interface PendingDirectory {
  hostDir: string;
  /** The directory as the caller named it: returned paths start with it. */
  caller: string;
  /** Its real path in the tool view: what the policy checks. */
  real: string;
}

/** A My Files listing asks the store for this many names at a time (its own maximum). */
const MY_FILES_PAGE = 1000;
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export async function listDirectory(
  context: OperationContext,
  args: ProviderToolArgs['list_directory'],
): Promise<OperationOutcome> {
  const options: WalkOptions = {
    recursive: args.recursive ?? false,
    cap: listCap(context, args.max_files),
    filesOnly: false,
    match: compileMatcher(args.pattern === undefined ? [] : [args.pattern]),
  };
  const paths = await walk(context, args.directory_path, options);
  return { value: paths, count: paths.length };
}

export async function findFiles(
  context: OperationContext,
  args: ProviderToolArgs['find_files'],
): Promise<OperationOutcome> {
  const options: WalkOptions = {
    recursive: args.recursive ?? true,
    cap: listCap(context, args.max_files),
    filesOnly: true,
    // No pattern matches nothing, as the spec's any() over an empty list.
    match: args.patterns.length === 0 ? () => false : compileMatcher(args.patterns),
  };
  const paths = await walk(context, args.directory_path, options);
  return { value: paths, count: paths.length };
}

/** min(max_files, settings.maxListFiles); max_files 0 means "not given", as the spec's `if max_files`. */
function listCap(context: OperationContext, maxFiles: number | undefined): number {
  const ceiling = context.scope.settings.maxListFiles;
  return maxFiles ? Math.min(maxFiles, ceiling) : ceiling;
}

/**
 * fnmatch-like, on the entry's name: `*` matches a leading dot, a leading `!` is literal, and
 * fnmatch's `[!seq]` is written `[^seq]` for picomatch, which would read `[!` literally.
 */
function compileMatcher(patterns: string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => true;
  try {
    const matchers = patterns.map((pattern) =>
      picomatch(pattern.replaceAll('[!', '[^'), { dot: true, nonegate: true }),
    );
    return (name) => matchers.some((matches) => matches(name));
  } catch {
    throw providerError(`Invalid pattern: ${JSON.stringify(patterns.length === 1 ? patterns[0] : patterns)}`);
  }
}

async function walk(context: OperationContext, raw: string, options: WalkOptions): Promise<string[]> {
  const found: string[] = [];
  const path = acceptPath(context, raw);
  switch (path.kind) {
    case 'my-files-file':
      throw notADirectory(path.toolPath);
    case 'my-files-missing':
      throw notFound(path.toolPath, 'Directory');
    case 'my-files-root':
      await walkMyFiles(context, path.toolPath, undefined, options, found);
      return found;
    case 'my-files-dir':
      await walkMyFiles(context, path.toolPath, path.source, options, found);
      return found;
    case 'workspace':
      break;
  }
  const root = context.root;
  const atRoot = path.relative === '';
  if (atRoot) {
    // My Files shadows a real `my_files`: its virtual directory is the one listed.
    const myFiles = `${path.toolPath}/${MY_FILES_DIR_NAME}`;
    const listed = checkProviderPolicy(context.scope, myFiles) === undefined;
    if (listed && !options.filesOnly && options.match(MY_FILES_DIR_NAME)) found.push(myFiles);
    if (root === undefined) {
      if (listed && options.recursive) await walkMyFiles(context, myFiles, undefined, options, found);
      return found.slice(0, options.cap);
    }
  }
  const resolved = await resolveWorkspacePath(context, path, true, 'Directory');
  if (!resolved.stats.isDirectory()) throw notADirectory(path.toolPath);
  const rootDir = (root as NonNullable<typeof root>).realDir;

  const queue: PendingDirectory[] = [
    { hostDir: resolved.hostPath, caller: path.toolPath, real: resolved.toolPath },
  ];
  let first = true;
  while (queue.length > 0 && found.length < options.cap) {
    const directory = queue.shift() as PendingDirectory;
    let entries: Dir;
    try {
      entries = await openCheckedDirectory(rootDir, directory.hostDir);
    } catch (error) {
      // The named directory's failure is the caller's answer; a subdirectory that cannot be read
      // (or changed while walking) is left out, as a walk over a live tree must.
      if (!first) continue;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw notFound(path.toolPath, 'Directory');
      if (code === 'EACCES' || code === 'EPERM') throw permissionDenied(path.toolPath);
      throw permissionDenied(path.toolPath, 'the directory changed while it was being opened');
    }
    first = false;
    const isWorkspaceRoot = directory.real === providerRoot(context.scope.username);
    for await (const entry of entries) {
      context.signal.throwIfAborted();
      if (isWorkspaceRoot && entry.name === MY_FILES_DIR_NAME) continue;
      const caller = `${directory.caller}/${entry.name}`;
      const real = `${directory.real}/${entry.name}`;
      if (checkProviderPolicy(context.scope, caller) || checkProviderPolicy(context.scope, real)) continue;
      const kind = await entryKind(entry, join(directory.hostDir, entry.name));
      if (options.match(entry.name)) {
        const wanted =
          !options.filesOnly || kind === 'file' || (kind === 'link' && (await isLinkToFile(context, real)));
        if (wanted) found.push(caller);
        if (found.length >= options.cap) break;
      }
      if (options.recursive && kind === 'directory') {
        queue.push({ hostDir: join(directory.hostDir, entry.name), caller, real });
      }
    }
  }
  if (atRoot && options.recursive && found.length < options.cap) {
    const myFiles = `${path.toolPath}/${MY_FILES_DIR_NAME}`;
    if (checkProviderPolicy(context.scope, myFiles) === undefined) {
      await walkMyFiles(context, myFiles, undefined, options, found);
    }
  }
  return found;
}

/**
 * Opens a directory without following a link in its last component, checks where the opened
 * descriptor really is (it must be `hostDir` itself, inside the workspace), then reads it through
 * that descriptor: a directory replaced by a link after the check is not what gets listed.
 */
async function openCheckedDirectory(rootDir: string, hostDir: string): Promise<Dir> {
  const handle = await open(hostDir, DIRECTORY_FLAGS);
  try {
    const fdPath = `/proc/self/fd/${handle.fd}`;
    const where = await readlink(fdPath).catch(() => undefined);
    // Without /proc (not Linux) the check falls back to the path itself, as resolveWorkspaceFile does.
    if (where !== undefined && where !== hostDir) throw new Error('directory moved');
    if (hostDir !== rootDir && !hostDir.startsWith(`${rootDir}/`)) throw new Error('outside the workspace');
    return await opendir(where === undefined ? hostDir : fdPath, { bufferSize: 256 });
  } finally {
    await handle.close();
  }
}

type EntryKind = 'file' | 'directory' | 'link' | 'other';

async function entryKind(entry: Dirent, hostPath: string): Promise<EntryKind> {
  const typed = kindOf(entry);
  if (typed !== undefined) return typed;
  // Some file systems do not report types in directory entries.
  const stats = await lstat(hostPath).catch(() => undefined);
  return stats === undefined ? 'other' : (kindOf(stats) ?? 'other');
}

function kindOf(
  entry: Pick<
    Dirent,
    | 'isFile'
    | 'isDirectory'
    | 'isSymbolicLink'
    | 'isFIFO'
    | 'isSocket'
    | 'isCharacterDevice'
    | 'isBlockDevice'
  >,
): EntryKind | undefined {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice())
    return 'other';
  return undefined;
}

/** find_files counts a link as a file when it leads to one inside the workspace the policy allows. */
async function isLinkToFile(context: OperationContext, real: string): Promise<boolean> {
  const root = context.root;
  if (root === undefined) return false;
  const resolved = await resolveInWorkspace(root, real.slice(root.toolDir.length + 1), true);
  return (
    resolved.ok &&
    resolved.stats.isFile() &&
    checkProviderPolicy(context.scope, resolved.toolPath) === undefined
  );
}

/** The virtual tree: the source directories (`source` undefined) or one source's newest versions. */
async function walkMyFiles(
  context: OperationContext,
  callerDir: string,
  source: (typeof MY_FILES_SOURCES)[number] | undefined,
  options: WalkOptions,
  found: string[],
): Promise<void> {
  if (source === undefined) {
    const listed = MY_FILES_SOURCES.filter(
      (candidate) => checkProviderPolicy(context.scope, `${callerDir}/${candidate}`) === undefined,
    );
    for (const candidate of listed) {
      if (found.length >= options.cap) return;
      if (!options.filesOnly && options.match(candidate)) found.push(`${callerDir}/${candidate}`);
    }
    if (!options.recursive) return;
    for (const candidate of listed)
      await walkMyFiles(context, `${callerDir}/${candidate}`, candidate, options, found);
    return;
  }
  const { files, owner } = context.scope;
  for (let offset = 0; found.length < options.cap; offset += MY_FILES_PAGE) {
    context.signal.throwIfAborted();
    const page = await files.list(owner, { source, sort: 'name', limit: MY_FILES_PAGE, offset });
    for (const record of page.items) {
      const path = `${callerDir}/${record.name}`;
      // A name the provider could not be asked for again (policy, odd characters) is not shown.
      const parsed = parseProviderPath(context.scope, path);
      if (parsed.kind !== 'my-files-file' || parsed.name !== record.name) continue;
      if (!options.match(record.name)) continue;
      found.push(path);
      if (found.length >= options.cap) return;
    }
    if (page.items.length < MY_FILES_PAGE) return;
  }
}
