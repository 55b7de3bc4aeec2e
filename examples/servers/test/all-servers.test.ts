import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  connectHttp,
  connectStdio,
  FILE_PROVIDER_SERVERS,
  REPO_ROOT,
  SERVER_NAMES,
  type ServerName,
  serverCommand,
  startHttp,
  TEST_ARGS,
  TEST_ONLY_SERVERS,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOOLS: Record<ServerName, string[]> = {
  report: ['csv_report'],
  legacy: ['make_legacy_files', 'make_v2_artifacts'],
  inject: ['analyze_document'],
  merge: ['merge_csv'],
  slow: ['crash', 'flaky', 'hang', 'slow_task'],
  escape: ['artifact_path', 'symlink_artifact', 'write_outside'],
  media: ['make_audio', 'make_image', 'make_link', 'make_resource'],
  xfile: ['ask_note', 'describe_image', 'fingerprint_document', 'review_document', 'store_named_document'],
  secrets: ['scan_secrets'],
  tasks: ['render_report', 'task_record', 'task_scenario'],
  signin: ['link_account'],
  'csv-chart': ['save_chart_png', 'show_csv_chart'],
};

it("the slow server users get offers its progress demo only; hang and crash are the tests'", async () => {
  const transport = new StdioClientTransport({ ...serverCommand('slow', { user: true }), cwd: REPO_ROOT });
  const client = new Client({ name: 'test-slow-user', version: '0.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['slow_task']);
  } finally {
    await client.close();
  }
});

it("the bundles carry zod's English messages only, and a server still says what input was wrong", async () => {
  // build-servers.mjs keeps `z.locales` to `en`: ~300 KB less source held by every server process.
  for (const name of SERVER_NAMES) {
    const bundle = await readFile(join(REPO_ROOT, 'examples/servers/dist', `${name}.js`), 'utf8');
    expect(bundle, name).not.toContain('ltige Eingabe'); // zod's German locale
  }
  const transport = new StdioClientTransport({ ...serverCommand('inject'), cwd: REPO_ROOT });
  const client = new Client({ name: 'test-zod-messages', version: '0.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'analyze_document', arguments: { filename: 'a.txt' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'instructions: Invalid input: expected string, received undefined',
    );
  } finally {
    await client.close();
  }
});

// Every example runs both ways from the same file, as ferry.config.json starts it.
describe('every example server', () => {
  let root: TempDir;
  beforeAll(async () => {
    root = await tempDir();
  });
  afterAll(async () => {
    await root?.cleanup();
  });

  it.each(SERVER_NAMES)('%s lists its tools over stdio and over Streamable HTTP', async (name) => {
    const stdio = await connectStdio(name, root.path);
    try {
      const { tools } = await stdio.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS[name]);
    } finally {
      await stdio.close();
    }
    const http = await startHttp(name, root.path);
    try {
      expect(http.url.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const connection = await connectHttp(http.url);
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS[name]);
      await connection.close();
    } finally {
      await http.stop();
    }
  });

  const SESSION_SERVERS: readonly ServerName[] = ['report', 'inject', 'merge', 'media', 'xfile'];

  it('ferry.config.json lists those meant for users, the test config the others, with the commands the tests use', async () => {
    const config = JSON.parse(await readFile(join(REPO_ROOT, 'ferry.config.json'), 'utf8'));
    const testConfig = JSON.parse(await readFile(join(REPO_ROOT, 'test/ferry.test-config.json'), 'utf8'));
    const entry = (name: ServerName, extra: string[]) => ({
      transport: 'stdio',
      command: 'node',
      // A small young generation: a per-user process that handles a 1 MiB file otherwise keeps ~24 MiB more.
      args: ['--max-semi-space-size=1', `examples/servers/dist/${name}.js`, ...extra],
      fileMode: 'path',
      ...(FILE_PROVIDER_SERVERS.includes(name) ? { fileProvider: true } : {}),
    });
    for (const name of SERVER_NAMES) {
      if (TEST_ONLY_SERVERS.includes(name)) expect(config.servers[name], name).toBeUndefined();
      else {
        // The everyday file tools start with the user's session, so their first call is not a cold start.
        const start = SESSION_SERVERS.includes(name) ? { start: 'session' } : {};
        expect(config.servers[name], name).toEqual({ ...entry(name, []), ...start });
      }
      if (TEST_ONLY_SERVERS.includes(name) || TEST_ARGS[name]) {
        // Runnable as it is too (ferry start -c test/ferry.test-config.json): cwd is the repository.
        expect(testConfig.servers[name], name).toEqual({ ...entry(name, TEST_ARGS[name] ?? []), cwd: '..' });
      }
    }
    expect(Object.keys(testConfig.servers).sort()).toEqual(
      SERVER_NAMES.filter((name) => TEST_ONLY_SERVERS.includes(name) || TEST_ARGS[name]).sort(),
    );
    expect(config.servers['report-http']).toEqual({
      transport: 'http',
      url: 'http://127.0.0.1:8811/mcp',
      fileMode: 'url',
      enabled: false,
    });
    expect(config.flags).toEqual({});
    // npm start offers the file provider to the servers that ask for it.
    expect(config.fileProvider).toEqual({ enabled: true });
  });
});
