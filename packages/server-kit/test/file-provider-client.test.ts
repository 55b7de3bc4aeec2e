// connectFileProvider against Ferry's real file provider: a real FileStore (local blobs + SQLite),
// a real workspace on disk, the provider's endpoint on a real HTTP server on 127.0.0.1 and its real
// per-user Unix socket; the client is the official SDK's.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  createFileProvider,
  type FileProvider as HostFileProvider,
  parseFileProviderSettings,
} from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { FILE_PROVIDER_TOOL_NAMES } from '@ferry/test-helpers/file-provider-client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  connectFileProvider,
  type FileProvider,
  FileProviderCallError,
} from '../src/file-provider-client.js';
import { type HttpServerHandle, serveHttp } from '../src/serve-http.js';
import { type TempDir, tempDir } from './temp-dir.js';

const USER = 'alice';
const WS = `/tmp/${USER}`;
const BINARY = randomBytes(3001);
const TEXT = 'héllo wörld\nsecond line\n';

let dir: TempDir;
let storage: OpenedStorage;
let host: HostFileProvider;
let http: Server;
let url: string;
let token: string;
const events: { tool: string; ok: boolean; errorType?: string }[] = [];

beforeAll(async () => {
  dir = await tempDir('ferry-fp-client-');
  const workspace = join(dir.path, 'workspaces', USER);
  await mkdir(join(workspace, 'src', 'deep'), { recursive: true });
  await writeFile(join(workspace, 'hello.txt'), TEXT);
  await writeFile(join(workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in latin-1
  await writeFile(join(workspace, 'data.bin'), BINARY);
  await writeFile(join(workspace, 'big.txt'), 'x'.repeat(5000));
  await writeFile(join(workspace, 'src', 'a.py'), 'print("a")\n');
  await writeFile(join(workspace, 'src', 'b.js'), 'console.log("b")\n');
  await writeFile(join(workspace, 'src', 'deep', 'c.py'), 'print("c")\n');
  await symlink('/etc/passwd', join(workspace, 'escape'));

  storage = await openStorage(
    loadStorageConfig({ file: {}, env: { FERRY_DATA_DIR: join(dir.path, 'data') } }),
  );
  const owner = await storage.files.ensureUser(USER);
  await storage.files.put(owner, 'report.csv', Readable.from([Buffer.from('a,b\n1,2\n')]));

  host = createFileProvider({
    settings: parseFileProviderSettings({ enabled: true, max_file_size: 4096 }),
    files: storage.files,
    workspacesRoot: join(dir.path, 'workspaces'),
    baseUrl: () => url.replace(/\/api\/.*$/, ''),
    socketDir: join(dir.path, 's'),
  });
  host.onCallback((event) =>
    events.push({
      tool: event.tool,
      ok: event.ok,
      ...(event.errorType ? { errorType: event.errorType } : {}),
    }),
  );
  // Ferry's routes, reduced to what they do for the provider: path → user and surface.
  http = createServer((req, res) => {
    const match = /^\/api\/file-provider\/([^/]+)\/(mcp|compat)(?:\?.*)?$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    void host.endpoint.handle(req, res, { username: match[1] as string, compat: match[2] === 'compat' });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api/file-provider/${USER}/mcp`;
  token = host.tokens.mint({ username: USER, server: 'test' }).token;
});

afterAll(async () => {
  await new Promise((resolve) => http?.close(resolve));
  await host?.close();
  await storage?.close();
  await dir?.cleanup();
});

const envFor = (extra: Record<string, string> = {}) => ({
  FERRY_FILE_PROVIDER_URL: url,
  FERRY_FILE_PROVIDER_TOKEN: token,
  ...extra,
});

async function expectCallError(promise: Promise<unknown>, tool: string, errorType: string) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FileProviderCallError);
  expect((error as FileProviderCallError).tool).toBe(tool);
  expect((error as FileProviderCallError).errorType).toBe(errorType);
  return error as FileProviderCallError;
}

describe('connectFileProvider over HTTP (the variables Ferry sets)', () => {
  let files: FileProvider;
  beforeAll(async () => {
    files = await connectFileProvider({ env: envFor() });
  });
  afterAll(async () => {
    await files?.close();
  });

  it('offers the client of the official SDK, connected to the provider', async () => {
    const { tools } = await files.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(FILE_PROVIDER_TOOL_NAMES);
    expect(files.client.getServerVersion()).toMatchObject({ name: 'ferry-file-provider', version: '1.0.0' });
  });

  it('readText returns the text, decoded with the encoding asked', async () => {
    expect(await files.readText(`${WS}/hello.txt`)).toBe(TEXT);
    expect(await files.readText(`${WS}/latin1.txt`, { encoding: 'latin-1' })).toBe('café');
    expect(await files.readText(`${WS}/my_files/uploaded/report.csv`)).toBe('a,b\n1,2\n');
  });

  it('readBinary returns the exact bytes', async () => {
    const bytes = await files.readBinary(`${WS}/data.bin`);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(BINARY)).toBe(true);
  });

  it('list and find return tool-view paths', async () => {
    expect((await files.list(`${WS}/src`)).sort()).toEqual([
      `${WS}/src/a.py`,
      `${WS}/src/b.js`,
      `${WS}/src/deep`,
    ]);
    expect((await files.list(`${WS}/src`, { pattern: '*.py', recursive: true })).sort()).toEqual([
      `${WS}/src/a.py`,
      `${WS}/src/deep/c.py`,
    ]);
    expect(await files.list(`${WS}/src`, { recursive: true, maxFiles: 2 })).toHaveLength(2);
    expect((await files.find(WS, ['*.py', '*.csv'])).sort()).toEqual([
      `${WS}/my_files/uploaded/report.csv`,
      `${WS}/src/a.py`,
      `${WS}/src/deep/c.py`,
    ]);
    expect(await files.find(`${WS}/src`, ['*.py'], { recursive: false })).toEqual([`${WS}/src/a.py`]);
  });

  it('exists is true or false, never an error', async () => {
    expect(await files.exists(`${WS}/hello.txt`)).toBe(true);
    expect(await files.exists(`${WS}/src`)).toBe(true);
    expect(await files.exists(`${WS}/nope.txt`)).toBe(false);
    expect(await files.exists('/etc/passwd')).toBe(false);
  });

  it('stats has the spec shape', async () => {
    const stats = await files.stats(`${WS}/data.bin`);
    expect(stats).toMatchObject({
      path: `${WS}/data.bin`,
      file_type: 'file',
      size: BINARY.length,
      is_directory: false,
      is_readable: true,
    });
    expect(Number.isNaN(Date.parse(stats.modified_time))).toBe(false);
    expect(await files.stats(`${WS}/src`)).toMatchObject({ file_type: 'directory', is_directory: true });
  });

  it('hash returns the hex digest (md5 by default, as the spec)', async () => {
    expect(await files.hash(`${WS}/data.bin`, 'sha256')).toBe(
      createHash('sha256').update(BINARY).digest('hex'),
    );
    expect(await files.hash(`${WS}/data.bin`)).toBe(createHash('md5').update(BINARY).digest('hex'));
  });

  it('maps each error type to a FileProviderCallError', async () => {
    await expectCallError(files.readText(`${WS}/missing.txt`), 'read_file', 'FileNotFoundError');
    await expectCallError(files.readText('/etc/passwd'), 'read_file', 'PermissionError');
    await expectCallError(files.readBinary(`${WS}/escape`), 'read_file_binary', 'PermissionError');
    await expectCallError(files.list('/tmp/bob'), 'list_directory', 'PermissionError');
    const tooLarge = await expectCallError(
      files.readText(`${WS}/big.txt`, { maxSize: 100 }),
      'read_file',
      'FileSizeLimitExceededError',
    );
    expect(tooLarge.message).toMatch(/5000/);
    // Over the provider's own max_file_size (4096) even without max_size.
    await expectCallError(
      files.readBinary(`${WS}/big.txt`),
      'read_file_binary',
      'FileSizeLimitExceededError',
    );
    await expectCallError(files.readText(`${WS}/src`), 'read_file', 'FileProviderError');
    await expectCallError(files.readText(`${WS}/data.bin`), 'read_file', 'FileProviderError');
    await expectCallError(
      files.hash(`${WS}/data.bin`, 'crc32' as 'md5'),
      'calculate_file_hash',
      'FileProviderError',
    );
    await expectCallError(files.call('read_file', {}), 'read_file', 'FileProviderError');
    expect(events.filter((event) => !event.ok).map((event) => event.errorType)).toEqual(
      expect.arrayContaining([
        'FileNotFoundError',
        'PermissionError',
        'FileSizeLimitExceededError',
        'FileProviderError',
      ]),
    );
  });
});

describe('connectFileProvider over the Unix socket', () => {
  it('sends every request to FERRY_FILE_PROVIDER_SOCKET, with the URL giving only the path', async () => {
    const socket = await host.socketFor(USER);
    // No server answers at this host: only the socket can.
    const files = await connectFileProvider({
      env: envFor({
        FERRY_FILE_PROVIDER_URL: `http://ferry.invalid/api/file-provider/${USER}/mcp`,
        FERRY_FILE_PROVIDER_SOCKET: socket,
      }),
    });
    try {
      const before = events.length;
      expect(await files.readText(`${WS}/hello.txt`)).toBe(TEXT);
      expect((await files.readBinary(`${WS}/data.bin`)).equals(BINARY)).toBe(true);
      await expectCallError(files.stats(`${WS}/missing`), 'get_file_stats', 'FileNotFoundError');
      expect(events.slice(before).map((event) => event.tool)).toEqual([
        'read_file',
        'read_file_binary',
        'get_file_stats',
      ]);
    } finally {
      await files.close();
    }
  });

  it('socketPath: null forces TCP even when the variable is set', async () => {
    const files = await connectFileProvider({
      env: envFor({ FERRY_FILE_PROVIDER_SOCKET: join(dir.path, 'no-such.sock') }),
      socketPath: null,
    });
    try {
      expect(await files.exists(`${WS}/hello.txt`)).toBe(true);
    } finally {
      await files.close();
    }
  });
});

describe('connectFileProvider refuses to connect', () => {
  it('names the missing variables and the config key that sets them', async () => {
    await expect(connectFileProvider({ env: {} })).rejects.toThrow(
      /FERRY_FILE_PROVIDER_URL and FERRY_FILE_PROVIDER_TOKEN are not set.*"fileProvider": true/s,
    );
    await expect(connectFileProvider({ env: { FERRY_FILE_PROVIDER_URL: url } })).rejects.toThrow(
      /: FERRY_FILE_PROVIDER_TOKEN is not set/,
    );
  });

  it('fails on a token that is not valid for this user', async () => {
    const bob = host.tokens.mint({ username: 'bob' }).token;
    await expect(connectFileProvider({ env: envFor({ FERRY_FILE_PROVIDER_TOKEN: bob }) })).rejects.toThrow();
    await expect(
      connectFileProvider({ env: envFor({ FERRY_FILE_PROVIDER_TOKEN: 'nope' }) }),
    ).rejects.toThrow();
  });
});

// A provider other than Ferry's may answer with text only (no structuredContent): the value is
// the text, parsed as JSON when it is JSON, and an {error, error_type} text is still an error.
describe('connectFileProvider with a provider that answers in text', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await serveHttp(
      () => {
        const mcp = new McpServer({ name: 'text-provider', version: '0.0.0' });
        const text = (value: string, isError = false) => ({
          content: [{ type: 'text' as const, text: value }],
          isError,
        });
        mcp.registerTool(
          'read_file',
          { inputSchema: z.object({ file_path: z.string() }) },
          async ({ file_path }) =>
            file_path === '/x'
              ? text('[not json')
              : file_path === '/n'
                ? text('1234')
                : text(JSON.stringify({ error: 'nope', error_type: 'FileNotFoundError' }), true),
        );
        mcp.registerTool(
          'list_directory',
          { inputSchema: z.object({ directory_path: z.string() }) },
          async () => text(JSON.stringify(['/x', '/y'])),
        );
        return mcp;
      },
      { onerror: () => {} },
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads values and errors from the text block', async () => {
    const files = await connectFileProvider({ url: server.url, token: 't', env: {} });
    try {
      expect(await files.readText('/x')).toBe('[not json');
      // A text that happens to be JSON is still the file's text.
      expect(await files.readText('/n')).toBe('1234');
      expect(await files.list('/')).toEqual(['/x', '/y']);
      const error = await expectCallError(files.readText('/missing'), 'read_file', 'FileNotFoundError');
      expect(error.message).toBe('nope');
    } finally {
      await files.close();
    }
  });
});
