import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeDataUri, FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInjectedFile } from '../src/injected-file.js';
import { type TempDir, tempDir } from './temp-dir.js';

const CSV = 'a,b\n1,2\n';

describe('readInjectedFile', () => {
  let dir: TempDir;
  let temp: TempDir;
  let http: Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = await tempDir();
    temp = await tempDir('ferry-injected-');
    await writeFile(join(dir.path, 'data.csv'), CSV);
    http = createServer((req, res) => {
      seen.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/files/1/content') {
        res.writeHead(200, {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="x.csv"; filename*=UTF-8''K%C3%B6ln%20sales.csv`,
        });
        res.end(CSV);
      } else if (url.pathname === '/big.bin') {
        // Chunked, no Content-Length: the limit must be enforced while streaming.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(Buffer.alloc(600));
        res.end(Buffer.alloc(600));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
    await dir.cleanup();
    await temp.cleanup();
  });

  it('takes a local path as it is', async () => {
    const path = join(dir.path, 'data.csv');
    const file = await readInjectedFile(path);
    expect(file).toMatchObject({
      source: 'path',
      name: 'data.csv',
      mime: 'text/csv',
      size: CSV.length,
      path,
    });
    await file.dispose();
    await access(path);
  });

  it('accepts file: URLs', async () => {
    const file = await readInjectedFile(pathToFileURL(join(dir.path, 'data.csv')).href);
    expect(file).toMatchObject({ source: 'path', name: 'data.csv' });
  });

  it('answers a missing path or a too large file with FerryError codes', async () => {
    await expect(readInjectedFile(join(dir.path, 'nope.csv'))).rejects.toMatchObject({
      code: 'E_FILE_NOT_FOUND',
    });
    await expect(readInjectedFile(dir.path)).rejects.toMatchObject({ code: 'E_FILE_NOT_FOUND' });
    await expect(readInjectedFile(join(dir.path, 'data.csv'), { maxBytes: 3 })).rejects.toMatchObject({
      code: 'E_FILE_TOO_LARGE',
      details: { file_size_bytes: CSV.length, current_limit_bytes: 3 },
    });
    await expect(readInjectedFile('')).rejects.toBeInstanceOf(FerryError);
  });

  it('decodes a data URI into a temporary file that dispose removes', async () => {
    const uri = encodeDataUri({
      mime: 'text/csv',
      name: '../../etc/report.csv',
      data: new TextEncoder().encode(CSV),
    });
    const file = await readInjectedFile(uri, { tempDir: temp.path });
    // The name= parameter is untrusted: normalized before it becomes a file name.
    expect(file).toMatchObject({
      source: 'data-uri',
      name: 'report.csv',
      mime: 'text/csv',
      size: CSV.length,
    });
    expect(file.path.startsWith(temp.path)).toBe(true);
    expect(await readFile(file.path, 'utf8')).toBe(CSV);
    await file.dispose();
    await file.dispose();
    expect(await readdir(temp.path)).toEqual([]);
  });

  it('names a data URI without name= after its type and refuses malformed or large ones', async () => {
    const file = await readInjectedFile('data:image/png;base64,iVBORw0KGgo=', { tempDir: temp.path });
    expect(file).toMatchObject({ name: 'file.png', mime: 'image/png', size: 8 });
    await file.dispose();
    await expect(readInjectedFile('data:text/plain;base64,@@@')).rejects.toMatchObject({
      code: 'E_INVALID_INPUT',
    });
    await expect(readInjectedFile('data:,hello', { maxBytes: 2 })).rejects.toMatchObject({
      code: 'E_FILE_TOO_LARGE',
    });
  });

  it('downloads a signed URL to a temporary file, named by Content-Disposition', async () => {
    const file = await readInjectedFile(`${base}/files/1/content?token=abc`, { tempDir: temp.path });
    expect(file).toMatchObject({ source: 'url', name: 'Köln sales.csv', mime: 'text/csv', size: CSV.length });
    expect(await readFile(file.path, 'utf8')).toBe(CSV);
    expect(seen).toContain('/files/1/content?token=abc');
    await file.dispose();
    expect(await readdir(temp.path)).toEqual([]);
  });

  it('reports HTTP failures without the token and stops an oversized download', async () => {
    const missing = readInjectedFile(`${base}/gone.csv?token=secret`, { tempDir: temp.path });
    await expect(missing).rejects.toMatchObject({ code: 'E_FILE_NOT_FOUND', details: { status: 404 } });
    await expect(missing).rejects.not.toThrow(/secret/);
    await expect(
      readInjectedFile(`${base}/big.bin`, { maxBytes: 1000, tempDir: temp.path }),
    ).rejects.toMatchObject({
      code: 'E_FILE_TOO_LARGE',
    });
    expect(await readdir(temp.path)).toEqual([]);
    const ok = await readInjectedFile(`${base}/big.bin`, { tempDir: temp.path });
    expect(ok).toMatchObject({ name: 'big.bin', size: 1200, mime: 'application/octet-stream' });
    await ok.dispose();
  });
});
