// File-provider benchmark: what a tool pays for reading the user's files through Ferry's file
// provider instead of from disk, measured in the same run against the same files.
// - calculate_file_hash (sha256) of a FERRY_BENCH_BYTES file (default 1 GiB) through the provider's
//   endpoint on a real HTTP server on 127.0.0.1, called by the official SDK client (server-kit's
//   connectFileProvider), vs Node's own streaming SHA-256 of the file. Target <= 1.3x.
// - read_file_binary of a 10 MiB file, vs readFile + base64.
//   Target <= 2x.
// Each side runs FERRY_BENCH_RUNS times (default 3; the small read 10x that), alternating, and the
// medians are compared. Prints one JSON document, with the RSS growth of this process (it holds
// both the provider and the client) while hashing. `FERRY_BENCH_BYTES=67108864` makes a quick run.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createFileProvider, parseFileProviderSettings } from '@ferry/host';
import { connectFileProvider } from '@ferry/server-kit';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { MIB, machineReport, median, round, timed, withRssPeak, writeRandomFile } from './_measure.js';

const SIZE = Number(process.env.FERRY_BENCH_BYTES ?? 1024 * MIB);
const BINARY_SIZE = 10 * MIB;
const RUNS = Number(process.env.FERRY_BENCH_RUNS ?? 3);
const READ_CHUNK = 64 * 1024;
const USER = 'bench';

const loadAtStart = loadavg()[0] ?? 0;
const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-fp-'));
try {
  const workspace = join(dir, 'workspaces', USER);
  await mkdir(workspace, { recursive: true });
  const big = join(workspace, 'big.bin');
  const small = join(workspace, 'small.bin');
  await writeRandomFile(big, SIZE);
  await writeRandomFile(small, BINARY_SIZE, 9);

  const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'ferry') }, env: {} }));
  let base = '';
  const provider = createFileProvider({
    settings: parseFileProviderSettings({
      enabled: true,
      max_file_size: Math.max(BINARY_SIZE, 10 * MIB),
      timeout_seconds: 3600,
    }),
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    baseUrl: () => base,
  });
  // Ferry's route, reduced to what it does for the provider.
  const http = createServer((req, res) => {
    void provider.endpoint.handle(req, res, { username: USER, compat: false });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { token } = provider.tokens.mint({ username: USER, server: 'bench' });
  const files = await connectFileProvider({ url: provider.urlFor(USER), token, socketPath: null, env: {} });

  const directHash = async () => {
    const hash = createHash('sha256');
    await pipeline(createReadStream(big, { highWaterMark: READ_CHUNK }), hash);
    return hash.digest('hex');
  };
  const hashRuns: { directMs: number; providerMs: number; rssGrowthBytes: number }[] = [];
  for (let run = 0; run < RUNS; run++) {
    let expected = '';
    const directMs = await timed(async () => {
      expected = await directHash();
    });
    let digest = '';
    const { value: providerMs, rssGrowthBytes } = await withRssPeak(() =>
      timed(async () => {
        digest = await files.hash(`/tmp/${USER}/big.bin`, 'sha256');
      }),
    );
    if (digest !== expected) throw new Error(`provider sha256 ${digest} != ${expected}`);
    hashRuns.push({ directMs, providerMs, rssGrowthBytes });
  }

  // What any MCP-over-HTTP answer of this file costs without the SDKs: the same CallToolResult
  // (value in the text block and in structuredContent) as one JSON body from a bare node:http
  // server, read with fetch + JSON.parse. Tells the SDKs' share from the format's. `/one` sends
  // the value once (text only): the least any JSON-RPC answer over HTTP can cost, the floor the
  // 2x target is measured against in the issue note.
  const floor = createServer((req, res) => {
    void readFile(small).then((bytes) => {
      const value = bytes.toString('base64');
      const text = { type: 'text', text: value };
      const result =
        req.url === '/one' ? { content: [text] } : { content: [text], structuredContent: { result: value } };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
  const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/`;

  const readRuns: { directMs: number; providerMs: number; floorMs: number; oneCopyMs: number }[] = [];
  for (let run = 0; run < RUNS * 10; run++) {
    let expected = '';
    const directMs = await timed(async () => {
      expected = (await readFile(small)).toString('base64');
    });
    let answer: unknown;
    const providerMs = await timed(async () => {
      answer = await files.call('read_file_binary', { file_path: `/tmp/${USER}/small.bin` });
    });
    if (answer !== expected) throw new Error('read_file_binary answered other bytes than the file holds');
    const floorMs = await timed(async () => {
      const body = (await (await fetch(floorUrl, { method: 'POST', body: '{}' })).json()) as {
        result: { structuredContent: { result: string } };
      };
      if (body.result.structuredContent.result.length !== expected.length)
        throw new Error('floor: wrong length');
    });
    const oneCopyMs = await timed(async () => {
      const body = (await (await fetch(`${floorUrl}one`, { method: 'POST', body: '{}' })).json()) as {
        result: { content: [{ text: string }] };
      };
      if (body.result.content[0].text.length !== expected.length) throw new Error('floor: wrong length');
    });
    readRuns.push({ directMs, providerMs, floorMs, oneCopyMs });
  }

  await files.close();
  await new Promise((resolve) => floor.close(resolve));
  await new Promise((resolve) => http.close(resolve));
  await provider.close();
  await storage.close();

  const hashDirect = median(hashRuns.map((r) => r.directMs));
  const hashProvider = median(hashRuns.map((r) => r.providerMs));
  const readDirect = median(readRuns.map((r) => r.directMs));
  const readProvider = median(readRuns.map((r) => r.providerMs));
  const hashRatio = hashProvider / hashDirect;
  const readRatio = readProvider / readDirect;
  const rssGrowthMiB = Math.max(...hashRuns.map((r) => r.rssGrowthBytes)) / MIB;
  console.log(
    JSON.stringify({
      bench: 'file-provider',
      machine: machineReport(loadAtStart),
      calculate_file_hash: {
        bytes: SIZE,
        algorithm: 'sha256',
        runs: hashRuns.map((r) => ({
          direct_ms: round(r.directMs),
          provider_ms: round(r.providerMs),
          rss_growth_mib: round(r.rssGrowthBytes / MIB),
        })),
        median_direct_ms: round(hashDirect),
        median_provider_ms: round(hashProvider),
        provider_mib_per_s: round(SIZE / MIB / (hashProvider / 1000)),
        ratio: round(hashRatio, 3),
      },
      read_file_binary: {
        bytes: BINARY_SIZE,
        runs: readRuns.length,
        median_direct_ms: round(readDirect),
        median_provider_ms: round(readProvider),
        ratio: round(readRatio, 3),
        // The same CallToolResult over plain node:http + fetch, no MCP SDK on either side.
        median_bare_http_json_ms: round(median(readRuns.map((r) => r.floorMs))),
        ratio_to_bare_http_json: round(readProvider / median(readRuns.map((r) => r.floorMs)), 3),
        median_bare_http_json_one_copy_ms: round(median(readRuns.map((r) => r.oneCopyMs))),
        one_copy_floor_ratio_to_direct: round(median(readRuns.map((r) => r.oneCopyMs)) / readDirect, 3),
      },
      rss_growth_mib_while_hashing: round(rssGrowthMiB),
      rss_mib_at_end: round(process.memoryUsage.rss() / MIB),
      target: { hash_ratio: 1.3, read_binary_ratio: 2 },
      pass: hashRatio <= 1.3 && readRatio <= 2,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
