// Sandbox start benchmark (Sandbox v2): the time from "launch this server for this user" to the
// answer of tools/list, and the RSS of the whole process tree then, for an example server (report)
// run sandboxed (bubblewrap on the allow-list, setpriv, the inner user namespace, prlimit, the
// wrapper shell) against the same server run unsandboxed, alternating, in the same run. Two forms
// of the same server:
//   js   the example bundled into one file with esbuild: what the sandbox itself adds
//   tsx  as ferry.config.json runs it (node --import tsx, TypeScript compiled at start); the
//        unsandboxed run gets a fresh TMPDIR too, so both compile cold, as the sandbox always does
// Target: sandboxed / unsandboxed <= 1.2 for both time and RSS (medians). Ferry as root here, so
// the sandboxed tree is the one root-run Ferry starts.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBubblewrapLauncher, type SandboxServer } from '@ferry/sandbox';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { build } from 'esbuild';
import { descendantsOf, median, procMemory, round } from './_measure.js';

const ROUNDS = Number(process.env.FERRY_BENCH_ROUNDS ?? 10);
const TARGET = 1.2;
const REPO = fileURLToPath(new URL('..', import.meta.url));

async function startAndList(
  server: SandboxServer,
  launch: (
    s: SandboxServer,
  ) => Promise<{ command: string; args: string[]; env: Record<string, string>; cwd?: string }>,
) {
  const started = process.hrtime.bigint();
  const spec = await launch(server);
  const transport = new StdioClientTransport({ ...spec, stderr: 'ignore' });
  const client = new Client({ name: 'ferry-bench', version: '0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (tools.length === 0) throw new Error(`${server.name}: no tools`);
  const pids = [transport.pid as number, ...descendantsOf(transport.pid as number)];
  const rss = pids.reduce((sum, pid) => sum + (procMemory(pid)?.rss ?? 0), 0);
  await client.close();
  return { ms, rss, processes: pids.length };
}

const dir = await mkdtemp('/var/tmp/ferry-bench-sandbox-');
try {
  // The example as one file: the same bytes run both ways, no compile at start.
  const bundle = join(dir, 'program', 'report.mjs');
  await build({
    entryPoints: [join(REPO, 'examples/servers/src/report.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['ferry-source'],
    outfile: bundle,
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  const { chmod } = await import('node:fs/promises');
  await chmod(dir, 0o755);
  await chmod(join(dir, 'program'), 0o755);
  const workspacesRoot = join(dir, 'workspaces');
  const sandboxed = createBubblewrapLauncher({ workspacesRoot, mode: 'required', onWarning: () => {} });
  const probe = await sandboxed.probe();
  if (!probe.available) throw new Error(`the sandbox is not available here: ${probe.reason}`);
  const unsandboxed = createBubblewrapLauncher({ workspacesRoot, mode: 'off', onWarning: () => {} });
  const user = `bench-${process.pid}`;
  const forms: Record<string, SandboxServer> = {
    js: {
      name: 'report',
      command: process.execPath,
      args: [bundle],
      env: {},
      sandbox: 'auto',
      network: false,
    },
    tsx: {
      name: 'report',
      command: process.execPath,
      args: ['--import', 'tsx', '--conditions=ferry-source', 'examples/servers/src/report.ts'],
      env: {},
      cwd: REPO,
      sandbox: 'auto',
      network: false,
    },
  };
  const results: Record<string, unknown> = {};
  let pass = true;
  for (const [form, server] of Object.entries(forms)) {
    const runs = {
      sandboxed: [] as { ms: number; rss: number; processes: number }[],
      unsandboxed: [] as { ms: number; rss: number; processes: number }[],
    };
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      // Alternating which goes first, so neither always meets a warmer page cache.
      const order =
        round_ % 2 === 0 ? (['sandboxed', 'unsandboxed'] as const) : (['unsandboxed', 'sandboxed'] as const);
      for (const kind of order) {
        const scratch = await mkdtemp(join(dir, 'tmp-'));
        const launch =
          kind === 'sandboxed'
            ? (s: SandboxServer) => sandboxed(s, user)
            : async (s: SandboxServer) => {
                const spec = await unsandboxed(s, user);
                // Cold like the sandbox's private /var/tmp: tsx's cache starts empty.
                return { ...spec, env: { ...spec.env, TMPDIR: scratch } };
              };
        runs[kind].push(await startAndList(server, launch));
        await rm(scratch, { recursive: true, force: true });
      }
    }
    const summary = (list: { ms: number; rss: number; processes: number }[]) => ({
      start_to_tools_list_ms_median: round(median(list.map((r) => r.ms)), 1),
      tree_rss_mib_median: round(median(list.map((r) => r.rss)) / 1024 / 1024, 1),
      processes: list[0]?.processes,
    });
    const s = summary(runs.sandboxed);
    const u = summary(runs.unsandboxed);
    const timeRatio = round(s.start_to_tools_list_ms_median / u.start_to_tools_list_ms_median, 3);
    const rssRatio = round(s.tree_rss_mib_median / u.tree_rss_mib_median, 3);
    const ok = timeRatio <= TARGET && rssRatio <= TARGET;
    pass &&= ok;
    results[form] = { sandboxed: s, unsandboxed: u, time_ratio: timeRatio, rss_ratio: rssRatio, pass: ok };
  }
  await rm(`/tmp/${user}`, { force: true });
  console.log(
    JSON.stringify(
      {
        bench: 'sandbox-start',
        rounds: ROUNDS,
        runs_as: probe.runsAs,
        target_ratio: TARGET,
        ...results,
        pass,
      },
      null,
      2,
    ),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
