// What a start checks and what a failed start leaves alone: every configured local server's
// command and script are checked (startup summary, GET /api/status), a server that cannot start
// fails its calls in one line and the log says so once, without a stack; one Ferry per data
// directory; a start that fails (data directory in use, port taken) empties nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V8_OPTIONS } from '../bin/run-ferry.mjs';
import { parseStream } from '../src/cli/sse-reader.js';
import { startServer } from '../src/server.js';
import { http, REPO_ROOT, settledCall, startCallOk, uploadOk } from './support/start-app.js';

const BIN = join(REPO_ROOT, 'apps/ferry/bin/ferry.mjs');
const TYPO = { transport: 'stdio', command: 'nodee-ferry-typo', args: ['server.js'], cwd: REPO_ROOT };
const NOPE = {
  transport: 'stdio',
  command: 'node',
  args: ['examples/servers/dist/nope.js'],
  cwd: REPO_ROOT,
};
/** Starts, says why on stderr, exits: nothing to find before the launch. */
const CRASHY = {
  transport: 'stdio',
  command: 'node',
  args: ['-e', "console.error('Error: missing API key'); process.exit(2)"],
  cwd: REPO_ROOT,
};
const SLOW = {
  transport: 'stdio',
  command: 'node',
  args: ['examples/servers/dist/slow.js'],
  cwd: REPO_ROOT,
};
const TYPO_WARNING = 'MCP server "typo" cannot start: command "nodee-ferry-typo" was not found in PATH';
const NOPE_WARNING = `MCP server "nope" cannot start: script ${REPO_ROOT}/examples/servers/dist/nope.js does not exist`;

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ferry-startup-'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function configDir(name: string, config: Record<string, unknown>): Promise<string> {
  const cwd = join(base, name);
  await mkdir(cwd, { recursive: true });
  await writeFile(join(cwd, 'ferry.config.json'), JSON.stringify(config));
  return cwd;
}

interface FerryChild {
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `ferry start` as a user runs it, in `cwd` (its ./.ferry is the data directory). */
function spawnFerry(cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /Ferry is listening on (http:\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`ferry exited with ${code} before listening:\n${output}`)));
  });
  // Only a caller that waits for it to listen cares that it did not.
  listening.catch(() => {});
  return { child, exited, listening, output: () => output };
}

async function startFerry(cwd: string, env: NodeJS.ProcessEnv = {}): Promise<FerryChild> {
  const run = spawnFerry(cwd, env);
  const url = await run.listening;
  return {
    child: run.child,
    url,
    output: run.output,
    stop: async () => {
      if (run.child.exitCode === null) run.child.kill('SIGTERM');
      return run.exited;
    },
  };
}

async function failedCall(url: string, server: string) {
  const callId = await startCallOk(url, { server, tool: 'anything', arguments: {} });
  const settled = await settledCall<{
    status: string;
    response: { forModel: { error?: { code: string; message: string } } } | null;
  }>(url, callId);
  expect(settled.status).toBe('failed');
  return settled.response?.forModel.error;
}

describe('a local server that cannot start', () => {
  it.each([
    ['sandboxed (auto, bubblewrap here)', {}],
    ['unsandboxed: sandbox.mode "off"', { mode: 'off' }],
    ['unsandboxed: auto without bubblewrap', { bwrapPath: '/nonexistent/bwrap' }],
  ])('%s: named at startup and in GET /api/status; a call fails in one line', async (name, sandbox) => {
    const cwd = await configDir(`modes-${name.replace(/\W+/g, '-')}`, {
      sandbox,
      servers: { typo: TYPO, nope: NOPE },
    });
    const server = await startServer({
      cwd,
      env: {},
      port: 0,
      logLevel: 'silent',
      onSandboxWarning: () => {},
    });
    try {
      const summary = server.summary.join('\n');
      expect(summary).toContain(`  WARNING  ${TYPO_WARNING}`);
      expect(summary).toContain(`  WARNING  ${NOPE_WARNING}`);
      const status = (await http(server.url, '/api/status')).json<{ warnings: string[] }>();
      expect(status.warnings).toEqual(
        expect.arrayContaining([expect.stringContaining(TYPO_WARNING), NOPE_WARNING]),
      );
      for (const [tool, expected] of [
        ['typo', TYPO_WARNING],
        ['nope', NOPE_WARNING],
      ] as const) {
        const error = await failedCall(server.url, tool);
        expect(error?.code).toBe('E_TOOL_UNAVAILABLE');
        expect(error?.message).toContain(expected);
        expect(error?.message).not.toContain('\n');
      }
    } finally {
      await server.close();
    }
  });

  it.each([
    ['sandboxed', {}],
    ['unsandboxed', { FERRY_SANDBOX: 'off' }],
  ])(
    '%s: the log names each failure once, in one line, without a stack',
    async (name, env) => {
      // Unsandboxed tools share the host's /tmp: a user of this test's own.
      const user = `startup-${name}-${process.pid}`;
      const cwd = await configDir(`log-${name}`, {
        auth: { user },
        servers: { typo: TYPO, nope: NOPE, crashy: CRASHY },
      });
      const ferry = await startFerry(cwd, env);
      let code: number | null;
      try {
        const listed = await http(ferry.url, '/api/servers/typo/tools');
        expect(listed.status).toBe(502);
        expect(listed.json<{ results: { error: string } }>().results.error).toContain(TYPO_WARNING);
        expect((await failedCall(ferry.url, 'typo'))?.message).toContain(TYPO_WARNING);
        expect((await failedCall(ferry.url, 'nope'))?.message).toContain(NOPE_WARNING);
        // Nothing to find before the launch: the reason is its stderr's line, the rest stays in the log.
        const crashed = await failedCall(ferry.url, 'crashy');
        expect(crashed?.message).toMatch(
          /^Could not connect to MCP server "crashy": .*; stderr: Error: missing API key$/,
        );
      } finally {
        code = await ferry.stop();
        await rm(`/tmp/${user}`, { force: true });
      }
      expect(code, ferry.output()).toBe(0);
      const lines = ferry.output().split('\n');
      // No stack anywhere: neither Ferry's own ("stack" in a JSON record) nor a trace's frames.
      expect(lines.filter((line) => /"stack"|^\s+at |\\n\s+at /.test(line))).toEqual([]);
      // The startup summary, then the listing and the call: each failure once.
      expect(lines.filter((line) => line.includes('nodee-ferry-typo'))).toHaveLength(3);
      expect(lines.filter((line) => line.includes('nope.js does not exist'))).toHaveLength(2);
      const crashes = lines.filter((line) => line.includes('Could not connect to MCP server'));
      expect(crashes).toHaveLength(1);
      expect(crashes[0]).toContain('stderr: Error: missing API key');
    },
    60_000,
  );
});

/** The call's events until the first progress: the server runs, its workspace exists. */
function firstProgress(url: string, callId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, url), (response: IncomingMessage) => {
      parseStream(response, (event) => {
        if (event.event === 'progress') {
          response.destroy();
          resolve();
        }
      }).then(() => reject(new Error('the call ended without progress')), reject);
    }).on('error', reject);
  });
}

describe('one Ferry per data directory; a failed start empties nothing', () => {
  it('a second `ferry start` on the same data directory refuses, naming it and the first; the first’s files and workspace are untouched', async () => {
    const cwd = await configDir('shared', { servers: { slow: SLOW } });
    const dataDir = join(cwd, '.ferry');
    const first = await startFerry(cwd);
    try {
      const stored = await uploadOk(first.url, 'notes.txt', 'kept across the second start\n');
      // A call in progress keeps the workspace in use for the first Ferry's own sweeps.
      const callId = await startCallOk(first.url, {
        server: 'slow',
        tool: 'slow_task',
        arguments: { seconds: 60, steps: 60 },
      });
      await firstProgress(first.url, callId);
      const marker = join(dataDir, 'workspaces', 'dev', 'draft.txt');
      await writeFile(marker, 'work in progress');

      const second = spawnFerry(cwd);
      expect(await second.exited).not.toBe(0);
      const holder = JSON.parse(await readFile(join(dataDir, 'ferry.lock.json'), 'utf8')) as { pid: number };
      expect(second.output()).toContain(
        `The data directory ${dataDir} is in use by another Ferry (pid ${holder.pid}, ${first.url}`,
      );
      expect(second.output()).toMatch(/scale mode: a PostgreSQL catalog/);
      expect(second.output()).not.toContain('Ferry is listening');

      expect(await readFile(marker, 'utf8')).toBe('work in progress');
      const content = await http(first.url, `/api/files/${stored.id}/content`);
      expect(content.text).toBe('kept across the second start\n');
      expect((await http(first.url, `/api/calls/${callId}`)).json<{ status: string }>().status).toBe(
        'running',
      );
      expect((await http(first.url, `/api/calls/${callId}`, { method: 'DELETE' })).status).toBeLessThan(300);
    } finally {
      expect(await first.stop(), first.output()).toBe(0);
    }
    // Stopped, the first let go of it: the next start gets it.
    const next = await startFerry(cwd);
    expect(await next.stop(), next.output()).toBe(0);
  }, 90_000);

  it('a start on a taken port fails before any sweep: its own workspaces keep their files, nothing is opened', async () => {
    const running = await startServer({ cwd: await configDir('port-owner', {}), env: {}, port: 0 });
    try {
      const port = Number(new URL(running.url).port);
      const cwd = await configDir('port-taken', {});
      // Left by an earlier run: a maintenance sweep would empty it (no session, no call).
      const leftover = join(cwd, '.ferry', 'workspaces', 'alice', 'out.csv');
      await mkdir(join(leftover, '..'), { recursive: true });
      await writeFile(leftover, 'a,b\n');
      await expect(startServer({ cwd, env: {}, port })).rejects.toThrow(
        new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use`),
      );
      expect(await readFile(leftover, 'utf8')).toBe('a,b\n');
      expect(existsSync(join(cwd, '.ferry', 'catalog.db'))).toBe(false);
      // The lock went with the failed start.
      const after = await startServer({ cwd, env: {}, port: 0 });
      await after.close();
    } finally {
      await running.close();
    }
  });

  it('an invalid config refuses before the data directory is created or locked', async () => {
    const cwd = await configDir('invalid', {
      servers: { report: { transport: 'stdio', command: 'node', fileMod: 'path' } },
    });
    await expect(startServer({ cwd, env: {}, port: 0 })).rejects.toThrow(
      /ferry\.config\.json:1:\d+: servers\.report\.fileMod: .*did you mean "fileMode"/,
    );
    expect(existsSync(join(cwd, '.ferry'))).toBe(false);
  });
});

describe('the process `ferry start` runs', () => {
  it('is a child Node given Ferry’s V8 options (bin/run-ferry.mjs)', async () => {
    expect(V8_OPTIONS).toContain('--no-concurrent-array-buffer-sweeping');
    const ferry = await startFerry(await configDir('v8-options', {}));
    try {
      const pid = ferry.child.pid as number;
      const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(' ');
      expect(children).toHaveLength(1);
      const argv = (await readFile(`/proc/${children[0]}/cmdline`, 'utf8')).split('\0');
      // Node options go before the script: after it they would be the script's arguments.
      const script = argv.findIndex((arg) => arg.endsWith('apps/ferry/src/main.ts'));
      expect(script).toBeGreaterThan(0);
      for (const option of V8_OPTIONS) expect(argv.slice(0, script)).toContain(option);
    } finally {
      expect(await ferry.stop(), ferry.output()).toBe(0);
    }
  }, 60_000);
});
