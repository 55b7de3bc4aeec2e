// The janitor on real directories: when workspaces are emptied, what is never touched, and how a
// call and a clear of the same user wait for each other. closeUser is recorded (the pool's own
// closeUser is tested in packages/host; the wiring with real servers in workspace-cleanup.test.ts).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceJanitor, type WorkspaceJanitor } from '../../src/workspaces/workspace-janitor.js';

const IDLE_MS = 60_000;
let dir: string;
let root: string;
let clock: number;
let closed: string[];
/** When set, closeUser waits for it (to hold a clear half-way). */
let closeGate: Promise<void> | undefined;
/** Called when closeUser is entered (a clear has begun). */
let onClose: (() => void) | undefined;
let janitor: WorkspaceJanitor;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-janitor-'));
  root = join(dir, 'workspaces');
  for (const user of ['alice', 'bob']) {
    await mkdir(join(root, user, 'input_files'), { recursive: true, mode: 0o700 });
    await writeFile(join(root, user, 'out.txt'), user);
    await writeFile(join(root, user, 'input_files', 'in.csv'), 'a,b');
  }
  // The host's own directory beside the workspaces: not a username, never touched.
  await mkdir(join(root, '.ferry-sync'));
  await writeFile(join(root, '.ferry-sync', 'marker'), 'keep');
  clock = 1_000_000;
  closed = [];
  closeGate = undefined;
  onClose = undefined;
  janitor = createWorkspaceJanitor({
    workspacesRoot: root,
    idleMs: IDLE_MS,
    now: () => clock,
    closeUser: async (user) => {
      closed.push(user);
      onClose?.();
      await closeGate;
      return 1;
    },
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const entries = (user: string) => readdir(join(root, user)).then((names) => names.sort());

/** A promise and its resolve, to hold a step until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('workspace janitor', () => {
  it('sessionEnded empties their workspace only, and leaves their servers running', async () => {
    expect(await janitor.sessionEnded('alice')).toBe(true);
    expect(closed).toEqual([]);
    expect(await entries('alice')).toEqual(['input_files']);
    expect(await readdir(join(root, 'alice', 'input_files'))).toEqual([]);
    expect(await entries('bob')).toEqual(['input_files', 'out.txt']);
    expect(await readFile(join(root, '.ferry-sync', 'marker'), 'utf8')).toBe('keep');
  });

  it('a running call keeps the workspace; the sweep empties it once idle for idleMs', async () => {
    const call = gate();
    const running = janitor.during('alice', () => call.promise);
    expect(await janitor.sessionEnded('alice')).toBe(false);
    expect(await janitor.sweep(new Set())).toEqual(['bob']);
    expect(closed).toEqual(['bob']);
    expect(await entries('alice')).toEqual(['input_files', 'out.txt']);

    call.open();
    await running;
    clock += IDLE_MS - 1;
    expect(await janitor.sweep(new Set())).toEqual([]);
    clock += 1;
    expect(await janitor.sweep(new Set())).toEqual(['alice']);
    expect(await entries('alice')).toEqual(['input_files']);
  });

  it('the sweep leaves users with a live session, and does not stop servers of an empty workspace', async () => {
    expect(await janitor.sweep(new Set(['alice']))).toEqual(['bob']);
    expect(await entries('alice')).toEqual(['input_files', 'out.txt']);
    expect(await janitor.sweep(new Set(['alice']))).toEqual([]);
    expect(closed).toEqual(['bob']);
  });

  it('a call that starts while a clear is under way waits for it, then finds the workspace empty', async () => {
    const held = gate();
    closeGate = held.promise;
    clock += IDLE_MS;
    const entered = new Promise<void>((resolve) => {
      onClose = resolve;
    });
    const clearing = janitor.sweep(new Set(['bob']));
    await entered;
    const order: string[] = [];
    const call = janitor.during('alice', async () => {
      order.push(`call sees ${(await entries('alice')).join(',') || 'nothing'}`);
      await writeFile(join(root, 'alice', 'new.txt'), 'fresh');
    });
    // The clear is held inside closeUser: the call must not have run yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    held.open();
    expect(await clearing).toEqual(['alice']);
    await call;
    expect(order).toEqual(['call sees input_files']);
    expect(await entries('alice')).toEqual(['input_files', 'new.txt']);
    expect(await readdir(join(root, 'alice', 'input_files'))).toEqual([]);
  });

  it('remove waits for a running call, stops the servers and removes the directory', async () => {
    const call = gate();
    let callEnded = false;
    const running = janitor.during('alice', async () => {
      await call.promise;
      callEnded = true;
    });
    const removal = janitor.remove('alice');
    await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(join(root, 'alice'))).toBe(true);
    expect(closed).toEqual([]);
    call.open();
    expect(await removal).toBe(true);
    await running;
    expect(callEnded).toBe(true);
    expect(closed).toEqual(['alice']);
    expect(existsSync(join(root, 'alice'))).toBe(false);
    expect(await entries('bob')).toEqual(['input_files', 'out.txt']);
    expect(await janitor.remove('alice')).toBe(false);
  });

  it('does nothing before any workspace exists', async () => {
    const empty = createWorkspaceJanitor({
      workspacesRoot: join(dir, 'never-made'),
      idleMs: IDLE_MS,
      closeUser: async (user) => {
        closed.push(user);
        return 0;
      },
    });
    expect(await empty.sessionEnded('alice')).toBe(true);
    expect(await empty.sweep(new Set())).toEqual([]);
    expect(closed).toEqual([]);
  });
});
