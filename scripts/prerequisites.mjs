#!/usr/bin/env node
// What `npm test` needs from the machine, checked before any test runs: the sandbox suites run
// bubblewrap, slirp4netns, ip, nsenter, prlimit and setpriv for real, a Python MCP server test
// makes a venv, the browser suite drives Debian's Chromium, the catalog tests use PostgreSQL and
// one sandbox test proves that Redis, listening on the host, stays out of a tool's reach. Whatever
// is missing is installed when it can be (Debian or Ubuntu, as root or with passwordless sudo:
// apt-get, each command printed before it runs); otherwise the run stops at once with the exact
// commands to run, instead of dozens of failures minutes later.
//
// `node scripts/prerequisites.mjs` runs this step alone; `--check` only reports, never installs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS = { host: '127.0.0.1', port: 6379 };

/** Commands the sandbox needs, found in PATH, and the Debian package of each. */
const COMMANDS = [
  { command: 'bwrap', pkg: 'bubblewrap', why: 'the sandbox suites' },
  { command: 'slirp4netns', pkg: 'slirp4netns', why: 'the sandbox network tests' },
  { command: 'ip', pkg: 'iproute2', why: 'the sandbox network tests' },
  { command: 'nsenter', pkg: 'util-linux', why: 'the sandbox network tests' },
  { command: 'prlimit', pkg: 'util-linux', why: 'the sandbox limits' },
  { command: 'setpriv', pkg: 'util-linux', why: 'the sandbox run as root' },
];

/**
 * @typedef {object} PrerequisiteOptions
 * @property {string} [path] PATH searched for commands. @default process.env.PATH
 * @property {string} [chromiumPath] @default '/usr/bin/chromium' (what e2e/playwright.config.ts launches)
 * @property {string} [pythonPath] @default '/usr/bin/python3' (what the Python server tests run)
 * @property {boolean} [isRoot] @default process.getuid() === 0
 * @property {boolean} [canSudo] passwordless sudo works. @default `sudo -n true` succeeds
 * @property {boolean} [isDebian] apt-get can install packages. @default /etc/debian_version and apt-get in PATH
 * @property {boolean} [install] false: report only. @default true
 * @property {string} [postgresUrl] @default FERRY_TEST_POSTGRES_URL or DEFAULT_POSTGRES_URL
 * @property {(url: string) => Promise<{ reason: string, code?: string } | undefined>} [checkPostgres]
 * @property {() => Promise<string | undefined>} [checkRedis] the reason Redis is unreachable, if it is
 * @property {(command: string[]) => number} [run] runs a command, returns its exit status
 * @property {(line: string) => void} [log]
 * @property {(line: string) => void} [error]
 */

/** Every unmet prerequisite; empty when the machine is ready. */
export async function findProblems(options = {}) {
  const o = withDefaults(options);
  const problems = [];
  if (!isExecutable(o.chromiumPath)) {
    problems.push({
      what: `Chromium at ${o.chromiumPath}`,
      why: 'the browser suite (e2e/)',
      packages: ['chromium'],
    });
  }
  for (const { command, pkg, why } of COMMANDS) {
    if (!which(command, o.path)) problems.push({ what: `${command} (${pkg})`, why, packages: [pkg] });
  }
  if (!isExecutable(o.pythonPath)) {
    problems.push({
      what: `Python at ${o.pythonPath}`,
      why: 'the Python server tests',
      packages: ['python3', 'python3-venv'],
    });
  } else if (o.run([o.pythonPath, '-c', 'import ensurepip, venv'], { quiet: true }) !== 0) {
    // Debian ships venv's ensurepip separately: without it `python3 -m venv` fails.
    problems.push({
      what: `python3 -m venv (${o.pythonPath})`,
      why: 'the Python MCP SDK server test',
      packages: ['python3-venv'],
    });
  }
  const postgres = await o.checkPostgres(o.postgresUrl);
  if (postgres) problems.push(postgresProblem(o, postgres));
  const redis = await o.checkRedis();
  if (redis) {
    problems.push({
      what: `Redis at ${REDIS.host}:${REDIS.port} (${redis})`,
      why: 'a sandbox test that proves host services stay out of reach (Ferry itself does not use Redis)',
      packages: which('redis-server', o.path) ? [] : ['redis-server'],
      steps: [['service', 'redis-server', 'start']],
    });
  }
  return problems;
}

/**
 * Checks, installs what it can, checks again. Resolves with the exit status for `npm test`: 0
 * when everything is there, 1 (after printing what to run) when something is still missing.
 */
export async function ensurePrerequisites(options = {}) {
  const o = withDefaults(options);
  const started = Date.now();
  let problems = await findProblems(o);
  if (o.install && canInstall(o)) {
    const sudo = o.isRoot ? [] : ['sudo', '-n'];
    const tried = new Set();
    const run = (command) => {
      tried.add(command.join(' '));
      o.log(`[test] running: ${[...sudo, ...command].join(' ')}`);
      return o.run([...sudo, ...command], { quiet: false });
    };
    // Two rounds: a fix can reveal the next step (a PostgreSQL just started lacks the database).
    for (let round = 0; round < 2 && problems.length > 0; round++) {
      const packages = unique(problems.flatMap((p) => p.packages));
      const install = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-qq'];
      const command = [...install, '--no-install-recommends', ...packages];
      const steps = problems.flatMap((p) => p.steps ?? []).filter((step) => !tried.has(step.join(' ')));
      if ((packages.length === 0 || tried.has(command.join(' '))) && steps.length === 0) break;
      if (packages.length > 0 && !tried.has(command.join(' '))) {
        o.log(`[test] installing what the tests need: ${packages.join(' ')}`);
        if (!tried.has('apt-get update -qq')) run(['apt-get', 'update', '-qq']);
        run(command);
      }
      // Services (PostgreSQL, Redis) start once their packages are there; a database is created.
      for (const step of steps) run(step);
      problems = await findProblems(o);
    }
  }
  if (problems.length === 0) {
    o.log(`[test] prerequisites: ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    if (!o.isRoot) {
      o.log(
        '[test] note: not root, so the two sandbox suites that test root-run Ferry will fail (CI runs as root)',
      );
    }
    return 0;
  }
  report(o, problems);
  return 1;
}

function report(o, problems) {
  o.error('[test] the machine lacks what these tests need, so no test was run:');
  for (const p of problems) o.error(`[test]   - ${p.what}: ${p.why}`);
  const sudo = o.isRoot ? '' : 'sudo ';
  const packages = unique(problems.flatMap((p) => p.packages));
  const commands = [];
  if (packages.length > 0) commands.push(`${sudo}apt-get install -y ${packages.join(' ')}`);
  for (const step of problems.flatMap((p) => p.steps ?? [])) commands.push(`${sudo}${step.join(' ')}`);
  if (commands.length > 0) {
    o.error(
      o.isDebian ? '[test] run:' : '[test] install them with your package manager; on Debian or Ubuntu:',
    );
    for (const command of commands) o.error(`  ${command}`);
  }
  for (const p of problems) for (const line of p.advice ?? []) o.error(`[test] ${line}`);
  o.error('[test] then run npm test again.');
}

/** What is wrong with PostgreSQL, and the steps that fix it when it is this machine's. */
function postgresProblem(o, { reason, code }) {
  const problem = {
    what: `PostgreSQL at ${o.postgresUrl} (${reason})`,
    why: 'the catalog and storage tests (trust auth, database test)',
    packages: [],
    steps: [],
    advice: [],
  };
  let host = '';
  try {
    host = new URL(o.postgresUrl).hostname;
  } catch {}
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
    problem.advice.push('FERRY_TEST_POSTGRES_URL points elsewhere: start that server or unset it.');
    return problem;
  }
  const database = decodeURIComponent(new URL(o.postgresUrl).pathname.slice(1)) || 'postgres';
  if (code === '3D000') {
    // The server runs; only the database is missing.
    problem.steps.push(['runuser', '-u', 'postgres', '--', 'createdb', database]);
  } else if (code === '28P01' || code === '28000' || /password|authentication/i.test(reason)) {
    problem.advice.push(
      `PostgreSQL refused the login: the tests connect without a password, so allow it with the line "host all all 127.0.0.1/32 trust" at the top of pg_hba.conf (/etc/postgresql/*/main/) and "sudo service postgresql reload", or point FERRY_TEST_POSTGRES_URL at a server that does.`,
    );
  } else {
    if (!which('pg_ctlcluster', o.path)) problem.packages.push('postgresql');
    problem.steps.push(['service', 'postgresql', 'start']);
    const sudo = o.isRoot ? '' : 'sudo ';
    problem.advice.push(
      `once it runs, if the database "${database}" does not exist yet: ${sudo}runuser -u postgres -- createdb ${database}`,
    );
  }
  return problem;
}

function canInstall(o) {
  return o.isDebian && (o.isRoot || o.canSudo);
}

function withDefaults(options) {
  const path = options.path ?? process.env.PATH ?? '';
  const run = options.run ?? runCommand;
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  return {
    ...options,
    path,
    run,
    isRoot,
    chromiumPath: options.chromiumPath ?? '/usr/bin/chromium',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    canSudo:
      options.canSudo ??
      (!isRoot && which('sudo', path) !== undefined && run(['sudo', '-n', 'true'], { quiet: true }) === 0),
    isDebian: options.isDebian ?? (existsSync('/etc/debian_version') && which('apt-get', path) !== undefined),
    install: options.install ?? true,
    postgresUrl: options.postgresUrl ?? process.env.FERRY_TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL,
    checkPostgres: options.checkPostgres ?? checkPostgres,
    checkRedis: options.checkRedis ?? (() => checkListening(REDIS.host, REDIS.port)),
    log: options.log ?? ((line) => console.log(line)),
    error: options.error ?? ((line) => console.error(line)),
  };
}

function runCommand(command, { quiet }) {
  const result = spawnSync(command[0], command.slice(1), {
    stdio: quiet ? 'ignore' : 'inherit',
    timeout: 15 * 60_000,
  });
  return result.status ?? 1;
}

function which(command, path) {
  for (const dir of path.split(delimiter)) {
    if (dir && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function unique(items) {
  return [...new Set(items)];
}

/** Connects as the tests do; the reason and SQLSTATE when that fails. */
async function checkPostgres(url) {
  let pg;
  try {
    // The client the storage tests use, resolved from their package (pg is not the root's dependency).
    const storage = createRequire(join(import.meta.dirname, '..', 'packages', 'storage', 'package.json'));
    pg = (await import(pathToFileURL(storage.resolve('pg')).href)).default;
  } catch {
    // Before npm ci: at least something must listen there.
    const { hostname, port } = new URL(url);
    const reason = await checkListening(hostname, Number(port || 5432));
    return reason ? { reason } : undefined;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return { reason: error.message || error.code || String(error), code: error.code };
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why nothing accepts a TCP connection at host:port within 2 s, or undefined when something does. */
function checkListening(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(2000, () => done('no answer within 2 s'));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error) => done(error.code ?? error.message));
  });
}

if (process.argv[1] === import.meta.filename) {
  process.exitCode = await ensurePrerequisites({ install: !process.argv.includes('--check') });
}
