// The secrets server as a real process (stdio, as Ferry starts it) against Ferry's real file
// provider: a real FileStore, a workspace with planted secrets in a temp dir, the provider's
// per-user Unix socket. The server is told nothing but the provider's variables: the URL names a
// host that does not exist (only the socket answers), its own workspace root is an empty directory,
// and /tmp/{user} does not exist on this machine, so every byte it reports came through the
// provider, which the callback events confirm.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  createFileProvider,
  type FileProvider as HostFileProvider,
  type ProviderCallbackEvent,
  parseFileProviderSettings,
} from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { payloadOf, REPO_ROOT, serverCommand } from '@ferry/test-helpers/example-servers';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSecrets, MAX_SCAN_BYTES, maskSecret } from '../src/secrets.js';

// A name no other test or user of this machine has, so /tmp/{USER} surely does not exist.
const USER = `sec${randomBytes(4).toString('hex')}`;
const WS = `/tmp/${USER}`;

const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
const DB_PASSWORD = 'hunter2-correct-horse';
const UPLOAD_PASSWORD = 'uploaded-s3cret-pass';
const SECRETS = [AWS_KEY_ID, AWS_SECRET, GITHUB_TOKEN, DB_PASSWORD, UPLOAD_PASSWORD];

const PLANTED: Record<string, string | Buffer> = {
  'config/.env': `# deploy settings\nAWS_ACCESS_KEY_ID=${AWS_KEY_ID}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\nDB_PASSWORD=${DB_PASSWORD}\n`,
  'keys/id_rsa': '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\n-----END RSA PRIVATE KEY-----\n',
  'src/app.py': `import os\n\nTOKEN = "${GITHUB_TOKEN}"\nprint("hi")\n`,
  'src/clean.py': 'print("nothing to see")\n',
  'README.md': '# Project\n\nNo secrets here.\n',
  // Over the scan limit: never read, even though it holds a key.
  'logs/big.log': `${'x'.repeat(MAX_SCAN_BYTES)}\n${AWS_KEY_ID}\n`,
  // Not UTF-8: skipped.
  'data/blob.bin': Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1]),
};

interface ScanPayload {
  results: {
    summary: string;
    directory: string;
    files_scanned: number;
    files_skipped: number;
    findings_count: number;
    findings: { path: string; line: number; column: number; rule: string; masked: string }[];
    files: { path: string; size: number; sha256: string | null; findings: number }[];
    skipped: { path: string; reason: string }[];
  };
  artifacts: { name: string; b64: string; mime: string }[];
  display: Record<string, unknown>;
}

let dataDir: string;
let storage: OpenedStorage;
let workspacesRoot: string;
let emptyRoot: string;

beforeAll(async () => {
  expect(existsSync(WS)).toBe(false);
  dataDir = await realpath(await mkdtemp(join(tmpdir(), 'ferry-secrets-')));
  workspacesRoot = join(dataDir, 'workspaces');
  emptyRoot = join(dataDir, 'server-root');
  await mkdir(emptyRoot);
  for (const [name, content] of Object.entries(PLANTED)) {
    const path = join(workspacesRoot, USER, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, content);
  }
  storage = await openStorage(
    loadStorageConfig({ file: {}, env: { FERRY_DATA_DIR: join(dataDir, 'data') } }),
  );
  const owner = await storage.files.ensureUser(USER);
  await storage.files.put(
    owner,
    'creds.txt',
    Readable.from([Buffer.from(`user=me\npassword: ${UPLOAD_PASSWORD}\n`)]),
  );
});

afterAll(async () => {
  await storage?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A provider for the test user, its socket, and the secrets server started with its variables. */
async function startScanner(settings: Record<string, unknown> = {}) {
  const provider: HostFileProvider = createFileProvider({
    settings: parseFileProviderSettings({ enabled: true, ...settings }),
    files: storage.files,
    workspacesRoot,
    baseUrl: () => 'http://ferry.invalid',
    socketDir: join(dataDir, `s${randomBytes(3).toString('hex')}`),
  });
  const events: ProviderCallbackEvent[] = [];
  provider.onCallback((event) => events.push(event));
  const socket = await provider.socketFor(USER);
  const { token } = provider.tokens.mint({ username: USER, server: 'secrets' });
  const transport = new StdioClientTransport({
    ...serverCommand('secrets'),
    cwd: REPO_ROOT,
    env: {
      ...getDefaultEnvironment(),
      FERRY_WORKSPACE_ROOT: emptyRoot,
      FERRY_FILE_PROVIDER_URL: provider.urlFor(USER),
      FERRY_FILE_PROVIDER_TOKEN: token,
      FERRY_FILE_PROVIDER_SOCKET: socket,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-secrets', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    events,
    scan: async (args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name: 'scan_secrets', arguments: { username: USER, ...args } });
      return { result, text: JSON.stringify(result) };
    },
    close: async () => {
      await client.close();
      await provider.close();
    },
  };
}

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

describe('scan_secrets through the file provider', () => {
  let scanner: Awaited<ReturnType<typeof startScanner>>;
  beforeAll(async () => {
    scanner = await startScanner();
  });
  afterAll(async () => {
    await scanner?.close();
  });

  it('finds each planted secret, masked, with the SHA-256 of every scanned file', async () => {
    const { result, text } = await scanner.scan();
    expect(result.isError).toBeFalsy();
    const payload = payloadOf(result) as unknown as ScanPayload;
    const { results } = payload;
    expect(results.directory).toBe(WS);

    const found = results.findings.map(({ path, line, rule, masked }) => ({ path, line, rule, masked }));
    expect(found).toEqual(
      expect.arrayContaining([
        { path: `${WS}/config/.env`, line: 2, rule: 'aws_access_key_id', masked: 'AKIA********' },
        { path: `${WS}/config/.env`, line: 3, rule: 'aws_secret_access_key', masked: '********' },
        { path: `${WS}/config/.env`, line: 4, rule: 'password_assignment', masked: '********' },
        {
          path: `${WS}/keys/id_rsa`,
          line: 1,
          rule: 'private_key',
          masked: '-----BEGIN RSA PRIVATE KEY-----',
        },
        { path: `${WS}/src/app.py`, line: 3, rule: 'github_token', masked: 'ghp_********' },
        {
          path: `${WS}/my_files/uploaded/creds.txt`,
          line: 2,
          rule: 'password_assignment',
          masked: '********',
        },
      ]),
    );
    expect(results.findings_count).toBe(6);
    expect(results.summary).toBe(`6 possible secrets in 4 of 6 files under ${WS}`);

    // Every scanned file with the digest of its real bytes; the large and the binary one skipped.
    const files = Object.fromEntries(results.files.map((file) => [file.path, file]));
    expect(Object.keys(files).sort()).toEqual(
      [
        `${WS}/README.md`,
        `${WS}/config/.env`,
        `${WS}/keys/id_rsa`,
        `${WS}/my_files/uploaded/creds.txt`,
        `${WS}/src/app.py`,
        `${WS}/src/clean.py`,
        // The my_files entry is virtual; the planted files below are all the others.
      ].sort(),
    );
    for (const [name, content] of Object.entries(PLANTED)) {
      const file = files[`${WS}/${name}`];
      if (file) expect(file.sha256, name).toBe(sha256(content));
    }
    expect(files[`${WS}/my_files/uploaded/creds.txt`]?.sha256).toBe(
      sha256(`user=me\npassword: ${UPLOAD_PASSWORD}\n`),
    );
    expect(results.skipped).toEqual(
      expect.arrayContaining([
        { path: `${WS}/logs/big.log`, reason: `larger than ${MAX_SCAN_BYTES} bytes` },
        { path: `${WS}/data/blob.bin`, reason: 'not UTF-8 text' },
      ]),
    );

    // The secret itself appears nowhere: not in the answer, not in the report.
    const report = Buffer.from(payload.artifacts[0]?.b64 ?? '', 'base64').toString('utf8');
    for (const secret of SECRETS) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(4));
      expect(report).not.toContain(secret.slice(4));
    }
    expect(payload.artifacts.map(({ name, mime }) => ({ name, mime }))).toEqual([
      { name: 'secrets-report.md', mime: 'text/markdown' },
    ]);
    expect(report).toContain(`| \`${WS}/src/app.py\` | 3 | GitHub token | \`ghp_********\` |`);
    expect(report).toContain(sha256(PLANTED['src/app.py'] as string));
    expect(payload.display).toEqual({ open_canvas: true, primary_file: 'secrets-report.md' });
  });

  it('read every file through the provider: find_files, read_file, calculate_file_hash', async () => {
    const before = scanner.events.length;
    await scanner.scan();
    const events = scanner.events.slice(before);
    expect(events[0]).toMatchObject({ tool: 'find_files', path: WS, ok: true, count: 8, server: 'secrets' });
    const reads = events.filter((event) => event.tool === 'read_file');
    expect(reads.map((event) => event.path).sort()).toEqual(
      [...Object.keys(PLANTED).map((name) => `${WS}/${name}`), `${WS}/my_files/uploaded/creds.txt`].sort(),
    );
    // The big log was refused before a byte was read.
    expect(reads.find((event) => event.path === `${WS}/logs/big.log`)).toMatchObject({
      ok: false,
      errorType: 'FileSizeLimitExceededError',
    });
    const hashes = events.filter((event) => event.tool === 'calculate_file_hash');
    expect(hashes).toHaveLength(6);
    expect(hashes.every((event) => event.ok)).toBe(true);
    expect(events.every((event) => event.username === USER)).toBe(true);
  });

  it('scans only the directory and the patterns asked', async () => {
    const { result } = await scanner.scan({ directory: `${WS}/src`, patterns: ['*.py'] });
    const { results } = payloadOf(result) as unknown as ScanPayload;
    expect(results.files.map((file) => file.path)).toEqual([`${WS}/src/app.py`, `${WS}/src/clean.py`]);
    expect(results.findings.map((finding) => finding.rule)).toEqual(['github_token']);

    const env = payloadOf((await scanner.scan({ patterns: ['.env'] })).result) as unknown as ScanPayload;
    expect(env.results.files.map((file) => file.path)).toEqual([`${WS}/config/.env`]);
  });

  it("answers the provider's refusal as a tool error for a directory outside the user's files", async () => {
    const { result, text } = await scanner.scan({ directory: '/etc' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/PermissionError|outside/);
    const other = await scanner.scan({ directory: `${WS}/nope` });
    expect(other.result.isError).toBe(true);
  });
});

describe('scan_secrets with a provider without the optional tools', () => {
  it('lists with list_directory, keeps files by get_file_stats, and reports no fingerprint', async () => {
    const scanner = await startScanner({ enable_optional_tools: false });
    try {
      const { result } = await scanner.scan({ directory: `${WS}/src` });
      const { results } = payloadOf(result) as unknown as ScanPayload;
      expect(results.files).toEqual([
        {
          path: `${WS}/src/app.py`,
          size: Buffer.byteLength(PLANTED['src/app.py'] as string),
          sha256: null,
          findings: 1,
        },
        {
          path: `${WS}/src/clean.py`,
          size: Buffer.byteLength(PLANTED['src/clean.py'] as string),
          sha256: null,
          findings: 0,
        },
      ]);
      const tools = new Set(scanner.events.map((event) => event.tool));
      expect([...tools].sort()).toEqual(['get_file_stats', 'list_directory', 'read_file']);
    } finally {
      await scanner.close();
    }
  });
});

describe('the secrets server without the provider', () => {
  it('answers an error that names the variables and "fileProvider": true', async () => {
    const transport = new StdioClientTransport({
      ...serverCommand('secrets'),
      cwd: REPO_ROOT,
      env: { ...getDefaultEnvironment(), FERRY_WORKSPACE_ROOT: emptyRoot },
    });
    const client = new Client({ name: 'test-secrets-bare', version: '0.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'scan_secrets', arguments: { username: USER } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).toMatch(
        /FERRY_FILE_PROVIDER_URL and FERRY_FILE_PROVIDER_TOKEN.*fileProvider/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('the detection rules', () => {
  it('masks with a fixed width, keeping only a known prefix', () => {
    expect(maskSecret('AKIAIOSFODNN7EXAMPLE', 4)).toBe('AKIA********');
    expect(maskSecret('x', 0)).toBe('********');
    expect(maskSecret('-----BEGIN PRIVATE KEY-----', Number.POSITIVE_INFINITY)).toBe(
      '-----BEGIN PRIVATE KEY-----',
    );
  });

  it('finds several secrets on one line and none in a longer random string', () => {
    const findings = findSecrets(
      '/f',
      `a=${AWS_KEY_ID} b=${AWS_KEY_ID}\nxAKIAIOSFODNN7EXAMPLEx\n"password": "${DB_PASSWORD}"`,
    );
    expect(findings.map(({ line, column, rule }) => ({ line, column, rule }))).toEqual([
      { line: 1, column: 3, rule: 'aws_access_key_id' },
      { line: 1, column: 26, rule: 'aws_access_key_id' },
      { line: 3, column: 2, rule: 'password_assignment' },
    ]);
  });

  it('reads its own source only as a module: the server never imports node:fs', async () => {
    const source = await readFile(join(REPO_ROOT, 'examples/servers/src/secrets.ts'), 'utf8');
    expect(source).not.toMatch(/from 'node:fs/);
  });
});
