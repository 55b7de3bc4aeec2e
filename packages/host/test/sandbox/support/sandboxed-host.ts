// The host as production runs it: createHost with the bubblewrap launcher, the tool root that goes
// with it, a real FileStore and the real attack server (examples/servers/src/attack.ts, from its
// build in examples/servers/dist) started inside bubblewrap. Everything lives under /var/tmp, not /tmp: the sandbox's private
// /tmp would hide a /tmp data directory by accident, and these tests must prove the hiding itself.
//
// If bubblewrap cannot run here the setup throws with the probe's reason: every test of the
// corpus then fails loudly. They never skip.

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import { type BubblewrapLauncherOptions, createBubblewrapLauncher, probeSandbox } from '@ferry/sandbox';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { expect } from 'vitest';
import { createHost, type Host } from '../../../src/host.js';
import { REPO_ROOT } from '../../support/servers.js';

/** An example server (built, examples/servers/dist), as the app runs it, sandbox required. */
export function sandboxedExample(name: Parameters<typeof exampleScript>[0]) {
  return {
    transport: 'stdio' as const,
    command: process.execPath,
    args: [exampleScript(name)],
    cwd: REPO_ROOT,
    sandbox: 'required' as const,
    timeouts: { timeoutSeconds: 20, hardCapSeconds: 60 },
  };
}

export const ATTACK_SERVER = sandboxedExample('attack');

/** Limits small enough to hit in a test, large enough for Node, tsx and esbuild to start. */
export const TEST_LIMITS = {
  memoryBytes: 1024 ** 3,
  cpuSeconds: 120,
  openFiles: 256,
  processes: 128,
  fileSizeBytes: 64 * 1024 ** 2,
  workspaceBytes: 256 * 1024 ** 2,
  quotaCheckMs: 500,
};
/** My Files' own limit (max_file_size_mb). */
export const MAX_FILE_MB = 16;

export interface SandboxedHost {
  dir: string;
  dataDir: string;
  workspacesRoot: string;
  host: Host;
  storage: OpenedStorage;
  owners: Record<string, string>;
  call(user: string, server: string, tool: string, args?: Record<string, unknown>): Promise<Called>;
  close(): Promise<void>;
}

export interface Called {
  response: ToolCallResponse;
  events: CallEvent[];
  /** The tool's `results` (as the model sees them). */
  results: Record<string, unknown>;
}

export async function openSandboxedHost(options: {
  users: string[];
  servers?: Record<string, unknown>;
  launcher?: Partial<BubblewrapLauncherOptions>;
  /**
   * Where everything lives. @default a new directory under /var/tmp with data/ and workspaces/;
   * the checkout tests put Ferry's default ./.ferry inside a checkout under /tmp instead.
   */
  layout?: { dir: string; dataDir: string; workspacesRoot: string; hide?: string[] };
}): Promise<SandboxedHost> {
  const probe = await probeSandbox({ mode: 'required' });
  if (!probe.available) {
    throw new Error(
      `bubblewrap cannot run here; the attack corpus cannot run (it never skips): ${probe.reason}`,
    );
  }
  await mkdir('/var/tmp', { recursive: true });
  const dir = options.layout?.dir ?? (await mkdtemp('/var/tmp/ferry-attack-'));
  const dataDir = options.layout?.dataDir ?? join(dir, 'data');
  const workspacesRoot = options.layout?.workspacesRoot ?? join(dir, 'workspaces');
  const storage = await openStorage(
    loadStorageConfig({ file: { max_file_size_mb: MAX_FILE_MB }, env: { FERRY_DATA_DIR: dataDir } }),
  );
  const launcher = createBubblewrapLauncher({
    workspacesRoot,
    mode: 'required',
    hide: [dataDir, ...(options.layout?.hide ?? [])],
    limits: TEST_LIMITS,
    ...options.launcher,
  });
  const host = createHost({
    config: { servers: options.servers ?? { attack: ATTACK_SERVER } },
    files: storage.files,
    workspacesRoot,
    launcher,
    toolRoot: launcher.toolRootFor,
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    // FERRY_TEST_STDERR=1: the servers' stderr on the test's, to see why one did not start.
    pool: { onStderr: process.env.FERRY_TEST_STDERR ? (s, u, t) => console.error(s, u, t) : () => {} },
  });
  const owners: Record<string, string> = {};
  for (const user of options.users) owners[user] = await storage.files.ensureUser(user);

  const call: SandboxedHost['call'] = async (user, server, tool, args = {}) => {
    const events: CallEvent[] = [];
    const owner = owners[user];
    if (owner === undefined) throw new Error(`unknown test user ${user}`);
    const response = await host.callTool(
      { user: { owner, username: user }, server, tool, arguments: args },
      (event) => events.push(event),
    );
    const results = (response.forModel.results ?? {}) as Record<string, unknown>;
    return { response, events, results };
  };
  return {
    dir,
    dataDir,
    workspacesRoot,
    host,
    storage,
    owners,
    call,
    close: async () => {
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Bytes of a file in My Files. */
export async function readStored(env: SandboxedHost, user: string, id: string): Promise<Buffer> {
  const { stream } = await env.storage.files.get(env.owners[user] as string, { id });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Puts a file into a user's My Files. */
export function upload(env: SandboxedHost, user: string, name: string, content: string) {
  return env.storage.files.put(env.owners[user] as string, name, Readable.from([Buffer.from(content)]), {
    mime: 'text/plain',
  });
}

/**
 * The other half of every attack test: legitimate work in the same sandbox still succeeds, and
 * the bytes that reach My Files are exactly the ones the tool wrote.
 */
export async function expectLegitimateWork(
  env: SandboxedHost,
  user: string,
  server = 'attack',
): Promise<void> {
  const content = `legitimate ${user} ${Math.random()}`;
  const name = `legit-${sha256(content).slice(0, 8)}.txt`;
  const { response } = await env.call(user, server, 'write_workspace', { name, content });
  expect(response.status).toBe('finished');
  const stored = response.forUi.files.find((file) => file.name === name);
  expect(stored, `${name} was not stored`).toBeDefined();
  expect(sha256(await readStored(env, user, stored?.id as string))).toBe(sha256(content));
}

/** The rejected outputs of a call with their codes. */
export function rejectedCodes(called: Called): string[] {
  return called.response.forUi.rejected.map((rejected) => rejected.code);
}
