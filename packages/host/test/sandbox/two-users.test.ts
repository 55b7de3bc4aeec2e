// Two users, 20 calls each, all at once, each in its own sandbox: every output lands in its
// owner's My Files and workspace only, byte for byte (sha256).
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSandboxedHost, readStored, type SandboxedHost, sha256 } from './support/sandboxed-host.js';

const USERS = ['alice', 'bob'] as const;
const CALLS = 20;
let env: SandboxedHost;
beforeAll(async () => {
  env = await openSandboxedHost({ users: [...USERS] });
});
afterAll(() => env?.close());

it('20 parallel calls per user: every output in its owner’s files only (sha256 checked)', async () => {
  const expected = new Map<string, Map<string, string>>(USERS.map((user) => [user, new Map()]));
  const calls = USERS.flatMap((user) =>
    Array.from({ length: CALLS }, (_, i) => {
      const name = `${user}-${i}.txt`;
      const content = `${user} ${i} ${randomBytes(24).toString('hex')}`;
      expected.get(user)?.set(name, sha256(content));
      return env.call(user, 'attack', 'write_workspace', { name, content });
    }),
  );
  const responses = await Promise.all(calls);
  for (const { response } of responses) expect(response.status).toBe('finished');

  for (const user of USERS) {
    const own = expected.get(user) as Map<string, string>;
    const others = new Set(
      USERS.filter((other) => other !== user).flatMap((other) => [...(expected.get(other)?.values() ?? [])]),
    );
    // My Files: each expected file with its exact bytes; nothing of the other user, in any version.
    const hashes = new Map<string, Set<string>>();
    for (const record of await everyVersion(user)) {
      const hash = sha256(await readStored(env, user, record.id));
      expect(others.has(hash), `${user} holds another user’s ${record.name}`).toBe(false);
      if (!hashes.has(record.name)) hashes.set(record.name, new Set());
      hashes.get(record.name)?.add(hash);
    }
    for (const [name, hash] of own) expect(hashes.get(name), `${user}/${name}`).toEqual(new Set([hash]));
    // The workspace on the host: exactly the user's own files.
    const ws = await env.host.workspaces.forUser(user);
    const names = (await readdir(ws.hostDir)).filter((name) => name !== 'input_files').sort();
    expect(names).toEqual([...own.keys()].sort());
    for (const [name, hash] of own) expect(sha256(await readFile(join(ws.hostDir, name)))).toBe(hash);
  }
  // One sandboxed process per user.
  const pids = await Promise.all(USERS.map(async (user) => (await env.host.pool.get('attack', user)).pid));
  expect(new Set(pids).size).toBe(USERS.length);
});

/** Every version of every file of `user` (the catalog lists 100 rows a page). */
async function everyVersion(user: string) {
  const owner = env.owners[user] as string;
  const rows = [];
  for (let offset = 0; ; offset += 100) {
    const page = await env.storage.files.list(owner, { allVersions: true, limit: 100, offset });
    rows.push(...page.items);
    if (page.items.length < 100) return rows;
  }
}
