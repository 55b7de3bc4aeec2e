import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  connectStdio,
  REPO_ROOT,
  SERVER_NAMES,
  type ServerName,
  serverCommand,
  startHttp,
  type TempDir,
  tempDir,
} from './harness.js';

const TOOLS: Record<ServerName, string[]> = {
  report: ['csv_report'],
  legacy: ['make_legacy_files', 'make_v2_artifacts'],
  inject: ['analyze_document'],
  merge: ['merge_csv'],
  slow: ['crash', 'hang', 'slow_task'],
  escape: ['artifact_path', 'symlink_artifact', 'write_outside'],
  media: ['make_audio', 'make_image', 'make_link', 'make_resource'],
  xfile: ['describe_image', 'review_document'],
};

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

  it('ferry.config.json lists each of them with the command the tests use', async () => {
    const config = JSON.parse(await readFile(join(REPO_ROOT, 'ferry.config.json'), 'utf8'));
    for (const name of SERVER_NAMES) {
      const { args } = serverCommand(name);
      expect(config.servers[name]).toEqual({
        transport: 'stdio',
        command: 'node',
        args: [...args.slice(0, -1), `examples/servers/src/${name}.ts`],
        fileMode: 'path',
      });
    }
    expect(config.servers['report-http']).toEqual({
      transport: 'http',
      url: 'http://127.0.0.1:8811/mcp',
      fileMode: 'url',
      enabled: false,
    });
    expect(config.flags).toEqual({});
  });
});
