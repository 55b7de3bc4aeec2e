// What every fault test checks once the fault is over (issue 22): each acknowledged file still
// reads back byte for byte (by sha256, the download streamed and hashed, never held), and nothing
// half-written is listed: every listed version downloads with the size and sha256 its row claims,
// and fsck (the maintenance module `ferry admin fsck` runs) finds no row whose blob is gone.
import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { checkConfiguredStorage, type FsckReport, loadStorageConfig } from '@ferry/storage';
import { expect } from 'vitest';
import { type FileJson, http } from './start-app.js';

export interface AckedFile {
  id: string;
  name: string;
  size: number;
  sha256: string;
}

export function sha256Of(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** GET the file's content and hash it as it streams in. */
function downloadDigest(
  base: string,
  id: string,
  headers: Record<string, string>,
): Promise<{ status: number; size: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    get(new URL(`/api/files/${id}/content`, base), { headers }, (response) => {
      const hash = createHash('sha256');
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
      });
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, size, sha256: hash.digest('hex') }),
      );
    }).on('error', reject);
  });
}

/** Every version the user has listed (all versions, temporary ones included). */
export async function listedFiles(base: string, headers: Record<string, string>): Promise<FileJson[]> {
  const result = await http(base, '/api/files?allVersions=true&limit=1000', { headers });
  expect(result.status, result.text).toBe(200);
  return result.json<{ items: FileJson[] }>().items;
}

/** Each acknowledged file is listed and downloads with exactly its bytes. */
export async function expectIntact(
  base: string,
  headers: Record<string, string>,
  acked: readonly AckedFile[],
): Promise<void> {
  const listed = new Map((await listedFiles(base, headers)).map((file) => [file.id, file]));
  for (const file of acked) {
    expect(listed.get(file.id), `${file.name} (${file.id}) is listed`).toMatchObject({
      size: file.size,
      sha256: file.sha256,
    });
    const got = await downloadDigest(base, file.id, headers);
    expect(got, `${file.name} downloads intact`).toEqual({
      status: 200,
      size: file.size,
      sha256: file.sha256,
    });
  }
}

/**
 * Nothing half-written is listed for these users: every listed version downloads whole, with the
 * size and sha256 of its row. Returns what was listed.
 */
export async function expectListedWhole(
  base: string,
  users: readonly Record<string, string>[],
): Promise<FileJson[]> {
  const all: FileJson[] = [];
  for (const headers of users) {
    for (const file of await listedFiles(base, headers)) {
      const got = await downloadDigest(base, file.id, headers);
      expect(got, `listed ${file.name}@${file.version} reads whole`).toEqual({
        status: 200,
        size: file.size,
        sha256: file.sha256,
      });
      all.push(file);
    }
  }
  return all;
}

/**
 * fsck over the storage the instances use (`storage` as given to startTestApp), with no grace
 * period, so a blob written a moment ago counts too. Fails on any row without its blob; returns
 * the report so a test can say what else it saw (orphan blobs, partial uploads, warnings).
 */
export async function expectNoRowWithoutBlob(storage: Record<string, unknown>): Promise<FsckReport> {
  const config = loadStorageConfig({ file: storage, env: {} });
  const report = await checkConfiguredStorage(config, { graceMs: 0 });
  expect(report.missingBlobs, 'rows whose blob is gone').toMatchObject({ found: 0 });
  return report;
}
