// The same-run reference of bench/upload.ts: the least a Node HTTP server can do for the three
// requests that benchmark makes, with Ferry's durability and none of its work (no auth, catalog,
// quota, sniffing, limits or validation). Upload: hash each chunk inline, write batches of about
// 1 MiB with writev, fsync, rename, fsync the directory; answer the stored size and SHA-256.
// Download: the file's ReadStream (1 MiB reads) piped into the response. What Ferry costs beyond
// this is Ferry's; what both cost is Node's and this machine's.
// Run: node --import tsx bench/support/minimal-file-server.ts <directory>; prints the URL like `ferry start`.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';

const BATCH_BYTES = 1024 * 1024;
const root = process.argv[2];
if (!root) throw new Error('usage: minimal-file-server.ts <directory>');
await mkdir(root, { recursive: true });

async function store(req: IncomingMessage, res: ServerResponse, name: string | null): Promise<void> {
  const id = randomUUID();
  const temp = join(root as string, `${id}.part`);
  const file = await open(temp, 'wx');
  const hash = createHash('sha256');
  let size = 0;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= BATCH_BYTES) {
        await file.writev(batch);
        batch = [];
        batchBytes = 0;
      }
    }
    if (batchBytes > 0) await file.writev(batch);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, join(root as string, id));
  const dir = await open(root as string, 'r');
  await dir.sync();
  await dir.close();
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ files: [{ id, name, size, sha256: hash.digest('hex') }] }));
}

async function serve(res: ServerResponse, id: string): Promise<void> {
  const path = join(root as string, id);
  const { size } = await stat(path);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  createReadStream(path, { highWaterMark: BATCH_BYTES }).pipe(res);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const id = /^\/api\/files\/([0-9a-f-]{36})(\/content)?$/.exec(url.pathname);
  const answer =
    req.method === 'POST' && url.pathname === '/api/files'
      ? store(req, res, url.searchParams.get('name'))
      : req.method === 'GET' && id?.[2]
        ? serve(res, id[1] as string)
        : req.method === 'DELETE' && id && !id[2]
          ? unlink(join(root, id[1] as string)).then(() => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end('{}');
            })
          : Promise.reject(new Error(`no route for ${req.method} ${url.pathname}`));
  answer.catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    console.log(`Ferry is listening on http://127.0.0.1:${address.port} (the minimal file server)`);
});
