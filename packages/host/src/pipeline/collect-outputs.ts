// Step 4: every file the tool produced, in whatever form (DESIGN step 4): the contract's
// normalizer reads the result (v2.1/v2 artifacts, deferred, legacy arrays, returned_file_*, MCP
// content), path artifacts are opened only through resolveWorkspaceFile, and files that appeared
// or changed in the workspace during the call are added even when the result does not list them.
// Refusals become rejected outputs; one bad file never loses the others.
import { basename } from 'node:path';
import {
  type ErrorEnvelope,
  errorEnvelope,
  type FileOutput,
  type HostOutputOrigin,
  type HostRejectedOutput,
  invalidPathError,
  mimeFromName,
  normalizeFilename,
  normalizeToolResult,
  type ToolOutcome,
  viewerForFile,
} from '@ferry/contract';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { type DetectionWindow, walkWindow } from '../workspace/detection-window.js';
import { type OpenedWorkspaceFile, resolveWorkspaceFile } from '../workspace/resolve-workspace-file.js';
import type { WorkspaceSnapshot } from '../workspace/workspace-snapshot.js';
import type { Workspace } from '../workspace/workspaces.js';

export interface CollectedFile extends Omit<FileOutput, 'origin'> {
  origin: HostOutputOrigin;
  /** Path sources: the file, already opened safely. */
  opened?: OpenedWorkspaceFile;
}

export interface CollectOutputsInput {
  result: CallToolResult;
  workspace: Workspace;
  /** Opened before the call (`workspace.startDetection()`); finished here. */
  detection?: DetectionWindow;
  /** A walk taken before the call, compared with one taken here (when there is no `detection`). */
  before?: WorkspaceSnapshot;
  maxFileBytes: number;
  deferredExpiresHours: number;
}

export type CollectedOutputs =
  | {
      ok: true;
      outcome: ToolOutcome;
      files: CollectedFile[];
      rejected: HostRejectedOutput[];
      warnings: string[];
    }
  | { ok: false; error: ErrorEnvelope };

export async function collectOutputs(input: CollectOutputsInput): Promise<CollectedOutputs> {
  const { workspace, maxFileBytes } = input;
  const normalized = normalizeToolResult(input.result, {
    workspaceRoot: workspace.toolDir,
    maxFileBytes,
    deferredExpiresHours: input.deferredExpiresHours,
  });
  if (!normalized.ok) {
    return {
      ok: false,
      error: errorEnvelope('E_TOOL_ERROR', {}, `Unreadable tool result: ${normalized.error}`),
    };
  }
  const outcome = normalized.outcome;
  const warnings = [...outcome.warnings];
  const rejected: HostRejectedOutput[] = outcome.rejected.map((r) => withEnvelope(r, workspace));
  const files: CollectedFile[] = [];
  const referenced = new Set<string>();

  const open = async (file: CollectedFile, toolPath: string, index?: number) => {
    const result = await resolveWorkspaceFile(workspace, toolPath, { maxBytes: maxFileBytes });
    const at = index === undefined ? {} : { index };
    if (!result.ok) {
      rejected.push({
        origin: file.origin,
        ...at,
        name: file.name,
        code: result.code,
        reason: result.reason,
        error: result.error,
      });
      return;
    }
    referenced.add(result.file.hostPath);
    // A file found in the workspace that an overlapping call of this user already took (listed or
    // found) is that call's; one the tool listed is always this call's.
    const claimed = workspace.claimOutput(result.file.hostPath, result.file.identity);
    if (!claimed && file.origin === 'workspace') {
      await result.file.close();
      return;
    }
    files.push({ ...file, size: result.file.size, opened: result.file });
  };

  for (const output of [...outcome.files, ...outcome.deferred]) {
    if (output.source.kind === 'path') await open({ ...output }, output.source.path);
    else files.push({ ...output });
  }

  // Neither: skip detection (remote servers cannot write here).
  const detection = input.detection ?? (input.before && walkWindow(input.before, () => workspace.snapshot()));
  if (detection) {
    const changes = await detection.finish();
    if (changes.truncated) warnings.push('workspace too large to scan fully; unlisted files may be missed');
    const taken = new Set(files.map((file) => file.name));
    for (const hostPath of changes.paths) {
      if (referenced.has(hostPath)) continue;
      const name = unique(normalizeFilename(basename(hostPath)), taken);
      const mime = mimeFromName(name);
      const toolPath = workspace.toToolPath(hostPath);
      await open(
        {
          name,
          originalName: basename(hostPath),
          mime,
          viewer: viewerForFile({ mime, name }),
          autoOpen: false,
          origin: 'workspace',
          source: { kind: 'path', path: toolPath },
        },
        toolPath,
      );
    }
  }
  return { ok: true, outcome, files, rejected, warnings };
}

/** The contract rejects a path that lexically leaves the workspace; give it the §12.2 envelope. */
function withEnvelope(rejected: ToolOutcome['rejected'][number], workspace: Workspace): HostRejectedOutput {
  const out: HostRejectedOutput = { ...rejected };
  if (rejected.code === 'E_INVALID_PATH') {
    out.error = invalidPathError({
      attemptedPath: quotedPath(rejected.reason) ?? '(unknown)',
      allowedPrefix: `${workspace.toolDir}/`,
    });
  }
  return out;
}

/** checkToolPath writes `path "<json>" is …`; recover the attempted path from it. */
function quotedPath(reason: string): string | undefined {
  const match = /path ("(?:[^"\\]|\\.)*")/.exec(reason);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as string;
  } catch {
    return undefined;
  }
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  for (let n = 2; taken.has(candidate); n++) candidate = normalizeFilename(`${stem} (${n})${extension}`);
  taken.add(candidate);
  return candidate;
}
