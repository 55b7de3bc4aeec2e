// The file provider end to end: a real Ferry (startServer) with the provider on and the secrets
// example server in the bubblewrap sandbox (mode required), a call through the API
// (POST /api/calls), the server reading the user's files only through the provider's socket
// bound into its sandbox. Checked: the answer (findings, masked), the report stored in My Files,
// the call's file_provider events and the audit log lines; no secret anywhere.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../src/cli/sse-reader.js';
import { type RunningServer, startServer } from '../src/server.js';
import { http, REPO_ROOT, settledCall, uploadOk } from './support/start-app.js';

const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB_TOKEN = `ghp_${'Zy9Xw8Vu7T'.repeat(3)}654321`;
const UPLOADED = `# staging\nAWS_ACCESS_KEY_ID=${AWS_KEY_ID}\n`;
const IN_WORKSPACE = `TOKEN = "${GITHUB_TOKEN}"\n`;

let dir: string;
let server: RunningServer;
const log: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-fp-e2e-'));
  const configPath = join(dir, 'ferry.config.json');
  await writeFile(
    configPath,
    JSON.stringify({
      sandbox: { mode: 'required' },
      fileProvider: { enabled: true },
      servers: {
        secrets: {
          transport: 'stdio',
          command: 'node',
          args: [exampleScript('secrets')],
          cwd: REPO_ROOT,
          fileProvider: true,
        },
      },
    }),
  );
  server = await startServer({
    cwd: dir,
    env: { FERRY_DATA_DIR: join(dir, 'data') },
    configPath,
    port: 0,
    logLevel: 'info',
    logStream: { write: (line: string) => void log.push(line) },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every event of a settled call, replayed from the start. */
function callEvents(callId: string): Promise<{ event: string; data: Record<string, unknown> }[]> {
  return new Promise((resolve, reject) => {
    const events: { event: string; data: Record<string, unknown> }[] = [];
    get(new URL(`/api/calls/${callId}/events`, server.url), (response: IncomingMessage) => {
      parseStream(response, (event) => {
        events.push({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> });
        if (event.event === 'finished' || event.event === 'failed') response.destroy();
      }).then(
        () => resolve(events),
        () => resolve(events),
      );
    }).on('error', reject);
  });
}

interface Settled {
  status: string;
  response: {
    forModel: { isError: boolean; results: Record<string, unknown> };
    forUi: { files: { id: string; name: string }[] };
  } | null;
}

describe('a sandboxed server reading the user files through the provider', () => {
  it('scans the workspace and My Files, answers masked findings, and each callback is a call event', async () => {
    await uploadOk(server.url, 'staging.env', UPLOADED);
    const workspace = join(dir, 'data', 'workspaces', 'dev');
    await mkdir(join(workspace, 'src'), { recursive: true });
    await writeFile(join(workspace, 'src', 'app.py'), IN_WORKSPACE);

    const started = await http(server.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'secrets', tool: 'scan_secrets', arguments: {} }),
    });
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    const settled = await settledCall<Settled>(server.url, callId, {}, 60_000);
    expect(settled.status, JSON.stringify(settled)).toBe('finished');
    const answer = settled.response;
    expect(answer?.forModel.isError).toBe(false);
    const results = answer?.forModel.results as {
      directory: string;
      findings: { path: string; rule: string; masked: string }[];
      files: { path: string; sha256: string }[];
    };
    expect(results.directory).toBe('/tmp/dev');
    // The model's copy of the results shows workspace paths relative (redact-for-model.ts).
    expect(results.findings.map(({ path, rule, masked }) => ({ path, rule, masked }))).toEqual(
      expect.arrayContaining([
        { path: 'my_files/uploaded/staging.env', rule: 'aws_access_key_id', masked: 'AKIA********' },
        { path: 'src/app.py', rule: 'github_token', masked: 'ghp_********' },
      ]),
    );
    const answerText = JSON.stringify(answer);
    expect(answerText).not.toContain(AWS_KEY_ID);
    expect(answerText).not.toContain(GITHUB_TOKEN.slice(4));

    // The report landed in My Files and holds no secret either.
    const report = answer?.forUi.files.find((file) => file.name === 'secrets-report.md');
    expect(report).toBeDefined();
    const content = await http(server.url, `/api/files/${report?.id}/content`);
    expect(content.status).toBe(200);
    expect(content.text).toContain('# Secret scan');
    expect(content.text).toContain('/tmp/dev/src/app.py');
    expect(content.text).not.toContain(AWS_KEY_ID);
    expect(content.text).not.toContain(GITHUB_TOKEN.slice(4));

    // Each callback of the server is an event of this call: listing, reads, hashes.
    const events = await callEvents(callId);
    const provider = events.filter((event) => event.event === 'file_provider').map((event) => event.data);
    expect(provider[0]).toMatchObject({
      type: 'file_provider',
      tool: 'find_files',
      path: '/tmp/dev',
      ok: true,
    });
    expect(provider).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool: 'read_file',
          path: '/tmp/dev/my_files/uploaded/staging.env',
          ok: true,
          bytes: Buffer.byteLength(UPLOADED),
        }),
        expect.objectContaining({
          tool: 'read_file',
          path: '/tmp/dev/src/app.py',
          ok: true,
          bytes: Buffer.byteLength(IN_WORKSPACE),
        }),
        expect.objectContaining({ tool: 'calculate_file_hash', path: '/tmp/dev/src/app.py', ok: true }),
      ]),
    );
    expect(JSON.stringify(provider)).not.toContain(AWS_KEY_ID);

    // One audit line per callback, naming user, server and tool, never the content.
    const audit = log.filter((line) => line.includes('file provider callback'));
    expect(audit.length).toBeGreaterThanOrEqual(provider.length);
    expect(
      audit.some((line) => line.includes('"server":"secrets"') && line.includes('"tool":"read_file"')),
    ).toBe(true);
    expect(audit.join('\n')).not.toContain(AWS_KEY_ID);
  }, 90_000);

  it('the sandboxed server has no path of its own to the files: a directory outside is refused', async () => {
    const started = await http(server.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'secrets', tool: 'scan_secrets', arguments: { directory: '/etc' } }),
    });
    const { callId } = started.json<{ callId: string }>();
    const settled = await settledCall<Settled>(server.url, callId, {}, 60_000);
    expect(settled.response?.forModel.isError).toBe(true);
    const events = await callEvents(callId);
    expect(events.filter((event) => event.event === 'file_provider').map((event) => event.data)).toEqual([
      expect.objectContaining({ tool: 'find_files', ok: false, errorType: 'PermissionError' }),
    ]);
  }, 90_000);
});
