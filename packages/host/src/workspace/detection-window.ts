// Workspace detection per call (v2.1 §2.2: "Client detects generated files"): a window opened
// before the tool is called and finished after it answered. Two ways to fill it: the change
// tracker (change-tracker.ts, nearly free per call) and two walks of the workspace compared
// (here; the first call of a workspace and the fallback whenever the tracker cannot be trusted).
import { changedFiles, type WorkspaceSnapshot } from './workspace-snapshot.js';

export interface DetectedChanges {
  /** Host paths of regular files created or changed during the call, outside `input_files/`; sorted. */
  paths: string[];
  /** The walk stopped at its bounds: files may be missed. */
  truncated: boolean;
  /** 'events': from the change tracker; 'walk': a walk of the workspace compared. */
  method: 'events' | 'walk';
}

export interface DetectionWindow {
  /** Call once, after the tool answered. */
  finish(): Promise<DetectedChanges>;
  /** Ends the window without a result (the call failed); safe to call after finish. */
  dispose(): void;
}

/** Compares `before` with a walk taken at finish. */
export function walkWindow(
  before: WorkspaceSnapshot,
  snapshot: () => Promise<WorkspaceSnapshot>,
): DetectionWindow {
  return {
    async finish() {
      const after = await snapshot();
      return {
        paths: changedFiles(before, after),
        truncated: before.truncated || after.truncated,
        method: 'walk',
      };
    },
    dispose() {},
  };
}
