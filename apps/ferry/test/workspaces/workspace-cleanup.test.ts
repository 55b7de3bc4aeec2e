// Workspace cleanup and user deletion as `ferry start` wires them: a real
// Ferry from startServer with the attack and slow example servers running in bubblewrap, driven
// over HTTP by users of a trusted proxy. Checked on disk: the workspace directory, the processes,
// the blobs, and what My Files still serves.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { isGone, waitUntilGone } from '@ferry/test-helpers/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { asUser, http, PROXY_SECRET, REPO_ROOT, uploadOk } from '../support/start-app.js';

const example = (name: Parameters<typeof exampleScript>[0]) => ({
  transport: 'stdio',
  command: process.execPath,
  args: [exampleScript(name)],
  cwd: REPO_ROOT,
});

let dir: string;
let server: RunningServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-cleanup-app-'));
  const configPath = join(dir, 'ferry.config.json');
  await writeFile(
    configPath,
    JSON.stringify({
      auth: { mode: 'proxy', proxySecret: PROXY_SECRET, admins: ['ops'] },
      sandbox: { mode: 'required' },
      servers: { attack: example('attack'), slow: example('slow') },
    }),
  );
  server = await startServer({ cwd: dir, env: {}, configPath, port: 0, onServerStderr: () => {} });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const workspaceOf = (user: string) => join(dir, '.ferry', 'workspaces', user);
const as = (user: string, session?: string) => ({
  ...asUser(user),
  ...(session ? { 'x-ferry-session': session } : {}),
});

async function ownerOf(user: string): Promise<string> {
  return server.app.ferry.authenticator.ownerOf(user);
}

/** Starts a call over HTTP; `settled` resolves when it has finished (no polling). */
async function startCall(
  user: string,
  session: string,
  target: { server: string; tool: string },
  args: object,
) {
  const started = await http(server.url, '/api/calls', {
    method: 'POST',
    headers: { ...as(user, session), 'content-type': 'application/json' },
    body: JSON.stringify({ ...target, arguments: args }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  const { calls } = server.app.ferry;
  const owner = await ownerOf(user);
  const record = await calls.get(owner, callId);
  if (!record) throw new Error('the call is not in the registry');
  const settled = calls.settled(callId).then(async () => {
    const done = await calls.get(owner, callId);
    if (!done) throw new Error('the settled call is no longer kept');
    return done;
  });
  return { callId, record, settled };
}

async function writeInWorkspace(user: string, session: string, name: string, content: string) {
  const call = await startCall(
    user,
    session,
    { server: 'attack', tool: 'write_workspace' },
    { name, content },
  );
  const record = await call.settled;
  expect(record.status, JSON.stringify(record.response)).toBe('finished');
  return record;
}

/** The slow example's slow_task: `seconds` long, one progress step a second. */
const startSlowTask = (user: string, session: string, seconds: number) =>
  startCall(user, session, { server: 'slow', tool: 'slow_task' }, { seconds, steps: seconds });

async function localPid(user: string): Promise<number> {
  const pid = (await server.host.pool.get('attack', user)).pid;
  if (pid === undefined) throw new Error('attack is not a local server');
  return pid;
}

const openSession = (user: string, session: string) =>
  http(server.url, '/api/sessions', { method: 'POST', headers: as(user, session) });
const endSession = (user: string, session: string) =>
  http(server.url, `/api/sessions/${session}`, { method: 'DELETE', headers: as(user) });

describe('workspace cleanup (startServer, bubblewrap)', () => {
  it("ending the user's last session empties the workspace, the server goes on (inputs still reach it); My Files keeps the output", async () => {
    expect(server.status.sandbox).toMatchObject({ effectiveMode: 'sandboxed' });
    const stored = await writeInWorkspace('alice', 'tab-one-alice', 'out.txt', 'hello from the tool');
    const file = stored.response?.forUi.files.find((f) => f.name === 'out.txt');
    expect(file).toBeDefined();
    expect(await readdir(workspaceOf('alice'))).toContain('out.txt');
    const pid = await localPid('alice');

    // A second tab is still open: ending the first keeps everything.
    expect((await openSession('alice', 'tab-two-alice')).status).toBe(201);
    expect((await endSession('alice', 'tab-one-alice')).json()).toEqual({ deletedFiles: 0 });
    expect(await readdir(workspaceOf('alice'))).toContain('out.txt');
    expect(isGone(pid)).toBe(false);

    // The last one: the workspace is emptied (the directory and an empty input_files/ stay); the
    // server keeps running until its idleSeconds, so the next session's first call is not a cold start.
    expect((await endSession('alice', 'tab-two-alice')).status).toBe(200);
    expect(await readdir(workspaceOf('alice'))).toEqual(['input_files']);
    expect(await readdir(join(workspaceOf('alice'), 'input_files'))).toEqual([]);
    expect(isGone(pid)).toBe(false);
    const content = await http(server.url, `/api/files/${file?.id}/content`, { headers: as('alice') });
    expect(content.status).toBe(200);
    expect(content.text).toBe('hello from the tool');

    // The next call runs on the same server, in the emptied workspace.
    await writeInWorkspace('alice', 'tab-three-alice', 'again.txt', 'second');
    expect((await readdir(workspaceOf('alice'))).sort()).toEqual(['again.txt', 'input_files']);
    expect(await localPid('alice')).toBe(pid);
    // A file handed over by path lands in the input_files/ the running sandbox has bound (the same
    // directory, emptied in place): the tool reads its bytes.
    await uploadOk(server.url, 'after-clear.txt', 'input after the clear', as('alice', 'tab-three-alice'));
    const read = await startCall(
      'alice',
      'tab-three-alice',
      { server: 'attack', tool: 'tamper_input' },
      { filename: 'after-clear.txt' },
    );
    const record = await read.settled;
    expect(record.status, JSON.stringify(record.response)).toBe('finished');
    expect(record.response?.forModel).toMatchObject({
      results: { read: { ok: true, data: 'input after the clear' }, write: { ok: false, error: 'EROFS' } },
    });
  });

  it('a call still running when the last session ends keeps its workspace and finishes', async () => {
    await writeInWorkspace('erin', 'erin-session-1', 'before.txt', 'kept while the call runs');
    const slow = await startSlowTask('erin', 'erin-session-1', 2);
    expect((await endSession('erin', 'erin-session-1')).status).toBe(200);
    expect(await readdir(workspaceOf('erin'))).toContain('before.txt');
    const record = await slow.settled;
    expect(record.status).toBe('finished');
    expect(await readdir(workspaceOf('erin'))).toContain('before.txt');
  });
});

describe('user deletion (DELETE /api/users/{username})', () => {
  it('only the user themself or an admin may delete; bad names are 400', async () => {
    await uploadOk(server.url, 'mine.txt', 'frank', as('frank'));
    const refused = await http(server.url, '/api/users/frank', { method: 'DELETE', headers: as('carol') });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ meta_data: { error_code: 'E_FORBIDDEN' } });
    expect((await http(server.url, '/api/files', { headers: as('frank') })).json()).toMatchObject({
      total: 1,
    });
    const bad = await http(server.url, '/api/users/..%2Fetc', { method: 'DELETE', headers: as('ops') });
    expect(bad.status).toBe(400);

    const self = await http(server.url, '/api/users/frank', { method: 'DELETE', headers: as('frank') });
    expect(self.status).toBe(200);
    expect(self.json()).toMatchObject({ username: 'frank', deletedFiles: 1 });
  });

  it('an admin deletes a user: running call cancelled, files, blobs, conversations, workspace and servers gone', async () => {
    const oldOwner = await ownerOf('bob');
    const upload = await uploadOk(server.url, 'data.csv', 'a,b\n1,2\n', as('bob', 'bob-session-1'));
    await writeInWorkspace('bob', 'bob-session-1', 'report.txt', 'bob’s output');
    const conversation = await http(server.url, '/api/conversations', {
      method: 'POST',
      headers: { ...as('bob'), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bob’s chat' }),
    });
    expect(conversation.status).toBe(201);
    const pid = await localPid('bob');
    const slow = await startSlowTask('bob', 'bob-session-1', 30);
    const blobDir = join(dir, '.ferry', 'blobs', 'users', oldOwner);
    expect((await readdir(blobDir)).length).toBe(2);

    const deleted = await http(server.url, '/api/users/bob', { method: 'DELETE', headers: as('ops') });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json()).toEqual({
      username: 'bob',
      cancelledCalls: 1,
      cancelledChatTurns: 0,
      deletedFiles: 2,
      deletedConversations: 1,
      workspaceRemoved: true,
    });
    expect((await slow.settled).status).toBe('cancelled');
    expect(existsSync(workspaceOf('bob'))).toBe(false);
    await waitUntilGone(pid);
    expect(await readdir(blobDir).catch(() => [])).toEqual([]);
    expect(await server.storage.files.deleteUser(oldOwner)).toBe(0);

    // Bob signing in again is a new, empty user; his old file ids lead nowhere.
    expect((await http(server.url, '/api/files', { headers: as('bob') })).json()).toMatchObject({ total: 0 });
    expect((await http(server.url, `/api/files/${upload.id}`, { headers: as('bob') })).status).toBe(404);
    expect((await http(server.url, '/api/conversations', { headers: as('bob') })).json()).toMatchObject({
      total: 0,
    });
    expect(await ownerOf('bob')).not.toBe(oldOwner);
    // Alice (another user) still has her files.
    expect(
      (await http(server.url, '/api/files', { headers: as('alice') })).json<{ total: number }>().total,
    ).toBeGreaterThan(0);
  });
});
