// Two Ferry instances over one PostgreSQL catalog, one S3 bucket and one token key (issue 22):
// whatever one stores, the other lists and serves, byte for byte; a tool call on either instance
// takes its inputs from the shared blob store into its own workspace and stores its outputs where
// both see them. Users stay apart across instances.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, type FileJson, http, settledCall, startCallOk, uploadOk } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

const ctx = useTestCluster(() => startTestCluster());

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('two instances sharing PostgreSQL, S3 and a token key', () => {
  it('serve from B, byte for byte, what was uploaded through A; other users see nothing', async () => {
    const content = Buffer.from(`shared across instances ${'x'.repeat(70_000)}\n`);
    const stored = await uploadOk(ctx.a, 'shared.txt', content, ALICE);
    expect(stored.sha256).toBe(sha256(content));

    const listed = await http(ctx.b, '/api/files', { headers: ALICE });
    expect(listed.status).toBe(200);
    expect(listed.json<{ items: FileJson[] }>().items.map((f) => [f.id, f.name, f.sha256])).toContainEqual([
      stored.id,
      'shared.txt',
      stored.sha256,
    ]);
    const downloaded = await http(ctx.b, `/api/files/${stored.id}/content`, { headers: ALICE });
    expect(downloaded.status).toBe(200);
    expect(sha256(downloaded.body)).toBe(stored.sha256);

    expect((await http(ctx.b, `/api/files/${stored.id}/content`, { headers: BOB })).status).toBe(404);
    expect((await http(ctx.a, `/api/files/${stored.id}`, { headers: BOB })).status).toBe(404);
  });

  it('run a tool on B over a file uploaded through A; its output is stored where A serves it', async () => {
    const content = Buffer.from('one\ntwo\nthree\n');
    await uploadOk(ctx.a, 'lines.txt', content, ALICE);
    const callId = await startCallOk(
      ctx.b,
      {
        server: 'inject',
        tool: 'analyze_document',
        arguments: { instructions: 'count', filename: 'lines.txt' },
      },
      ALICE,
    );
    const settled = await settledCall<{ status: string; response?: { storedFiles?: { id: string }[] } }>(
      ctx.b,
      callId,
      ALICE,
      60_000,
    );
    expect(settled.status, JSON.stringify(settled)).toBe('finished');

    const onA = (await http(ctx.a, '/api/files?limit=100', { headers: ALICE })).json<{ items: FileJson[] }>()
      .items;
    const analysis = onA.find((file) => file.name !== 'lines.txt' && file.name !== 'shared.txt');
    expect(analysis, JSON.stringify(onA.map((f) => f.name))).toBeDefined();
    const report = await http(ctx.a, `/api/files/${analysis?.id}/content`, { headers: ALICE });
    expect(report.status).toBe(200);
    // The tool hashed the bytes it was handed: the instance that ran it read them from S3.
    expect(report.text).toContain(sha256(content));
  });
});
