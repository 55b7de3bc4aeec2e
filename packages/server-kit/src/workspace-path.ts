// Where a tool may write: the user's workspace, `/tmp/{username}` as v2.1 §5.1 says. Inside
// Ferry's sandbox the tool really sees /tmp/{username}; when Ferry runs a server unsandboxed it sets
// FERRY_WORKSPACE_ROOT to the directory that holds the workspaces instead. Every name a tool writes
// goes through resolveWorkspacePath, which refuses anything that leaves the workspace, lexically
// (`..`, absolute paths) or through a symlink already planted in it.
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join, posix, resolve, sep } from 'node:path';
import { FerryError, INPUT_DIR_NAME, isValidUsername, WORKSPACE_ROOT_ENV } from '@ferry/contract';

export const DEFAULT_WORKSPACE_ROOT = '/tmp';

/** The directory holding every user's workspace: `$FERRY_WORKSPACE_ROOT`, else `/tmp`. */
export function workspaceRoot(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[WORKSPACE_ROOT_ENV];
  return value ? resolve(value) : DEFAULT_WORKSPACE_ROOT;
}

/**
 * `<root>/<username>`. The username must match the contract's pattern (it becomes a path
 * component); anything else throws FerryError E_INVALID_INPUT.
 */
export function workspaceDir(username: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!isValidUsername(username)) {
    throw new FerryError('E_INVALID_INPUT', `Invalid username ${JSON.stringify(username)}`, {
      field: 'username',
    });
  }
  return join(workspaceRoot(env), username);
}

/**
 * Checks a workspace-relative name lexically and returns it in normal form (`a/b.txt`). Refused
 * with E_INVALID_PATH: empty names, NUL, backslashes, absolute paths, anything that climbs out
 * with `..`, and names under `input_files/`.
 */
export function normalizeWorkspaceName(relativeName: string, workspace: string): string {
  const refuse = (why: string) => invalidPath(relativeName, workspace, why);
  if (typeof relativeName !== 'string' || relativeName === '') throw refuse('the name is empty');
  if (relativeName.includes('\0')) throw refuse('the name contains a NUL byte');
  // A backslash is a separator on Windows and to some tools; as a name character it only misleads.
  if (relativeName.includes('\\')) throw refuse('the name contains a backslash');
  if (posix.isAbsolute(relativeName)) throw refuse('the name is absolute, not relative to the workspace');
  const normal = posix.normalize(relativeName).replace(/\/+$/, '');
  if (normal === '.' || normal === '..' || normal.startsWith('../')) {
    throw refuse('the name leaves the workspace');
  }
  // Where the host materializes input files (read-only in the sandbox); never an output location.
  if (normal === INPUT_DIR_NAME || normal.startsWith(`${INPUT_DIR_NAME}/`)) {
    throw refuse(`${INPUT_DIR_NAME}/ holds the host's read-only inputs`);
  }
  return normal;
}

/**
 * The absolute path for `relativeName` in the user's workspace, ready to be written: the workspace
 * and the parent directories are created (mode 0700 for the workspace, so other local users cannot
 * read it when there is no sandbox). Every existing component is checked with lstat, so a symlink
 * (to a directory or a file) can never redirect the write outside. Throws FerryError
 * E_INVALID_PATH with the spec's details (attempted_path, allowed_prefix).
 */
export async function resolveWorkspacePath(
  username: string,
  relativeName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const workspace = workspaceDir(username, env);
  const normal = normalizeWorkspaceName(relativeName, workspace);
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  const realWorkspace = await realpath(workspace);
  const segments = normal.split('/');
  let current = workspace;
  for (const [index, segment] of segments.entries()) {
    current = join(current, segment);
    const last = index === segments.length - 1;
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info?.isSymbolicLink()) {
      throw invalidPath(
        relativeName,
        workspace,
        `${posix.join(...segments.slice(0, index + 1))} is a symlink`,
      );
    }
    if (last) break;
    if (!info) {
      // Another call may create it at the same moment; the realpath check below still applies.
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    } else if (!info.isDirectory()) {
      throw invalidPath(
        relativeName,
        workspace,
        `${segments.slice(0, index + 1).join('/')} is not a directory`,
      );
    }
  }
  // Belt and braces: the parent must still resolve inside the workspace (a race with another
  // process swapping a directory for a link would show here).
  const realParent = await realpath(join(workspace, posix.dirname(normal)));
  if (realParent !== realWorkspace && !realParent.startsWith(realWorkspace + sep)) {
    throw invalidPath(relativeName, workspace, 'the name resolves outside the workspace');
  }
  return join(workspace, normal);
}

function invalidPath(attempted: string, workspace: string, why: string): FerryError {
  return new FerryError('E_INVALID_PATH', `File operation outside allowed directory: ${why}`, {
    attempted_path: attempted,
    allowed_prefix: `${workspace}/`,
  });
}
