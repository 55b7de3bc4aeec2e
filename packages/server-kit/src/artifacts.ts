// Writing outputs into the workspace and describing them as v2.1 artifacts (§6.1) or deferred
// artifacts (§7.1) with `path`. The tool never decides between base64 and object storage: the
// host reads the path and routes by size (§6.2), so large outputs are streamed here, not buffered.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { type Artifact, type DeferredArtifact, mimeFromName } from '@ferry/contract';
import { resolveWorkspacePath, workspaceDir } from './workspace-path.js';

/** Bytes, text (written as UTF-8), a Node stream, or any async iterable of chunks. */
export type ArtifactData = string | Uint8Array | Readable | AsyncIterable<string | Uint8Array>;

export interface WriteArtifactOptions {
  /** Name in My Files. @default the last segment of the relative name */
  name?: string;
  /** @default guessed from the name's extension (application/octet-stream when unknown) */
  mime?: string;
  description?: string;
  /** `report`, `dataset`, `visualization`, `draft`, … */
  category?: string;
  /** Open the file in the viewer right away. */
  autoOpen?: boolean;
  /** Viewer hint: `image`, `pdf`, `html`, `code`, `data`. */
  viewer?: string;
}

export interface DeferredArtifactOptions {
  /** @default the last segment of the relative name */
  name?: string;
  /** @default guessed from the name's extension */
  mime?: string;
  description?: string;
  /** `needs_editing`, `draft`, `incomplete`, `awaiting_approval`. */
  reason?: string;
  /** Suggested next steps for the user. */
  nextActions?: string[];
  category?: string;
  /** Hours until the host expires the file. The host's default (72) applies when omitted. */
  expiresHours?: number;
}

export type PathArtifact = Artifact & { path: string; mime: string; size: number };
export type PathDeferredArtifact = DeferredArtifact & { path: string; mime: string };

/** Writes `data` to `relativeName` in the user's workspace; returns the absolute path and size. */
export async function writeWorkspaceFile(
  username: string,
  relativeName: string,
  data: ArtifactData,
): Promise<{ path: string; size: number }> {
  const path = await resolveWorkspacePath(username, relativeName);
  // O_NOFOLLOW: a symlink put at the final name after the check is refused, never followed.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const handle = await open(path, flags, 0o644);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else {
      // One chunk at a time: each write is awaited (backpressure), and writeFile on a handle
      // continues at the current position, writing the whole chunk even if the OS takes it in parts.
      for await (const chunk of data) await handle.writeFile(chunk);
    }
    const { size } = await handle.stat();
    return { path, size };
  } finally {
    await handle.close();
  }
}

/** Writes the file and returns the v2.1 artifact pointing at it (`path`, `mime`, `size`, hints). */
export async function writeArtifact(
  username: string,
  relativeName: string,
  data: ArtifactData,
  options: WriteArtifactOptions = {},
): Promise<PathArtifact> {
  const { path, size } = await writeWorkspaceFile(username, relativeName, data);
  const name = options.name ?? posix.basename(relativeName);
  const artifact: PathArtifact = { name, path, mime: options.mime ?? mimeFromName(name), size };
  if (options.description !== undefined) artifact.description = options.description;
  if (options.category !== undefined) artifact.category = options.category;
  if (options.autoOpen !== undefined) artifact.auto_open = options.autoOpen;
  if (options.viewer !== undefined) artifact.viewer = options.viewer;
  return artifact;
}

/** Writes the file and returns the v2.1 deferred artifact (§7.1) pointing at it. */
export async function deferredArtifact(
  username: string,
  relativeName: string,
  data: ArtifactData,
  options: DeferredArtifactOptions = {},
): Promise<PathDeferredArtifact> {
  const { path } = await writeWorkspaceFile(username, relativeName, data);
  const name = options.name ?? posix.basename(relativeName);
  const deferred: PathDeferredArtifact = { name, path, mime: options.mime ?? mimeFromName(name) };
  if (options.description !== undefined) deferred.description = options.description;
  if (options.reason !== undefined) deferred.reason = options.reason;
  if (options.nextActions !== undefined) deferred.next_actions = options.nextActions;
  if (options.category !== undefined) deferred.category = options.category;
  if (options.expiresHours !== undefined) deferred.expires_hours = options.expiresHours;
  return deferred;
}

/** The same helpers bound to one user, for tools that write several files. */
export interface Workspace {
  readonly username: string;
  /** The workspace directory as the tool sees it (`/tmp/alice`). */
  readonly dir: string;
  /** See resolveWorkspacePath. */
  resolve(relativeName: string): Promise<string>;
  writeArtifact(
    relativeName: string,
    data: ArtifactData,
    options?: WriteArtifactOptions,
  ): Promise<PathArtifact>;
  deferredArtifact(
    relativeName: string,
    data: ArtifactData,
    options?: DeferredArtifactOptions,
  ): Promise<PathDeferredArtifact>;
}

/** Throws FerryError E_INVALID_INPUT for a username that cannot be a path component. */
export function workspace(username: string): Workspace {
  const dir = workspaceDir(username);
  return {
    username,
    dir,
    resolve: (relativeName) => resolveWorkspacePath(username, relativeName),
    writeArtifact: (relativeName, data, options) => writeArtifact(username, relativeName, data, options),
    deferredArtifact: (relativeName, data, options) =>
      deferredArtifact(username, relativeName, data, options),
  };
}
