// Shared by the change tracker tests: a Workspaces over a temporary root with a spied watch, and
// `during(act)`, one "call" as the pipeline makes it: startDetection(), the tool's changes, finish().
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { DetectedChanges } from '../../../src/workspace/detection-window.js';
import type { DetectionOptions } from '../../../src/workspace/workspace-detection.js';
import type { SnapshotOptions } from '../../../src/workspace/workspace-snapshot.js';
import { createWorkspaces, type Workspace, type Workspaces } from '../../../src/workspace/workspaces.js';
import { createWatchSpy, type WatchSpy } from './watch-spy.js';

export interface TrackerHarness {
  /** A temporary directory; the workspaces root is `<dir>/root`. */
  dir: string;
  workspaces: Workspaces;
  spy: WatchSpy;
  /** alice's workspace. */
  ws: Workspace;
  setup(detection?: DetectionOptions, snapshot?: SnapshotOptions): Promise<Workspace>;
  /** What detection reports for the changes `act` makes, with paths relative to the workspace. */
  during(act: () => unknown, workspace?: Workspace): Promise<DetectedChanges & { rel: string[] }>;
  /** A host path in alice's workspace. */
  at(...parts: string[]): string;
}

/** Registers its own beforeEach/afterEach; call once at the top of a test file. */
export function useTrackerHarness(): TrackerHarness {
  let started = false;
  const h = {
    async setup(detection: DetectionOptions = {}, snapshot?: SnapshotOptions) {
      h.spy = createWatchSpy();
      h.workspaces = createWorkspaces({
        root: join(h.dir, 'root'),
        detection: { watch: h.spy.watch, ...detection },
        ...(snapshot ? { snapshot } : {}),
      });
      started = true;
      h.ws = await h.workspaces.forUser('alice');
      return h.ws;
    },
    async during(act: () => unknown, workspace?: Workspace) {
      const target = workspace ?? h.ws;
      const window = await target.startDetection();
      await act();
      const changes = await window.finish();
      return { ...changes, rel: changes.paths.map((path) => relative(target.hostDir, path)) };
    },
    at: (...parts: string[]) => join(h.ws.hostDir, ...parts),
  } as TrackerHarness;
  beforeEach(async () => {
    h.dir = await mkdtemp(join(tmpdir(), 'ferry-tracker-'));
  });
  afterEach(async () => {
    if (started) await h.workspaces.close();
    started = false;
    await rm(h.dir, { recursive: true, force: true });
  });
  return h;
}
