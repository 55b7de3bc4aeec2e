// Servers configured with `start: "session"` are started when a session of the user opens, before
// any call: a real Ferry (startServer) with two built example servers, one started with the
// session and one on first use, users of a trusted proxy over HTTP. The pool's connection events
// say what started, for whom, and which process; the first call must find that same process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionEvent } from '@ferry/host';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';
import {
  asUser,
  http,
  PROXY_SECRET,
  REPO_ROOT,
  settledCall,
  startCallOk,
  uploadOk,
} from './support/start-app.js';

const events: ConnectionEvent[] = [];
const waiters: { match: (event: ConnectionEvent) => boolean; resolve: (event: ConnectionEvent) => void }[] =
  [];

/** The first event (already seen, or still to come) that matches. */
function nextEvent(match: (event: ConnectionEvent) => boolean): Promise<ConnectionEvent> {
  const seen = events.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => waiters.push({ match, resolve }));
}

let dir: string;
let server: RunningServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-session-start-'));
  const configPath = join(dir, 'ferry.config.json');
  const example = (name: 'inject' | 'merge', start: 'session' | 'call') => ({
    transport: 'stdio',
    command: process.execPath,
    args: [exampleScript(name)],
    cwd: REPO_ROOT,
    start,
  });
  await writeFile(
    configPath,
    JSON.stringify({
      auth: { mode: 'proxy', proxySecret: PROXY_SECRET },
      servers: { inject: example('inject', 'session'), merge: example('merge', 'call') },
    }),
  );
  server = await startServer({
    cwd: dir,
    env: {},
    configPath,
    port: 0,
    onServerStderr: () => {},
    onConnectionEvent: (event) => {
      events.push(event);
      for (const waiter of waiters.filter((w) => w.match(event))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const connected = (serverName: string, user: string) => (event: ConnectionEvent) =>
  event.type === 'connected' && event.server === serverName && event.user === user;

describe('start: "session"', () => {
  it('opening a session starts the session servers of that user only; the first call finds the same process', async () => {
    expect(events.filter((event) => event.type === 'connected')).toEqual([]);
    const opened = await http(server.url, '/api/sessions', {
      method: 'POST',
      headers: { ...asUser('sam'), 'x-ferry-session': 'sam-tab-1' },
    });
    expect(opened.status).toBe(201);
    const started = await nextEvent(connected('inject', 'sam'));
    expect(started).toMatchObject({ kind: 'local', pid: expect.any(Number) });
    // Nobody else's, and not the server that starts on first use.
    expect(events.filter((event) => event.type === 'connected')).toEqual([started]);

    // The same session again (another request of the tab) starts nothing new.
    await http(server.url, '/api/sessions', {
      method: 'POST',
      headers: { ...asUser('sam'), 'x-ferry-session': 'sam-tab-1' },
    });
    const headers = { ...asUser('sam'), 'x-ferry-session': 'sam-tab-1' };
    await uploadOk(server.url, 'notes.txt', 'hello', headers);
    const callId = await startCallOk(
      server.url,
      {
        server: 'inject',
        tool: 'analyze_document',
        arguments: { instructions: 'count', filename: 'notes.txt' },
      },
      headers,
    );
    const call = await settledCall<{ status: string }>(server.url, callId, headers);
    expect(call.status, JSON.stringify(call)).toBe('finished');
    expect((await server.host.pool.get('inject', 'sam')).pid).toBe(started.pid);
    expect(events.filter((event) => event.type === 'connected')).toEqual([started]);
  });

  it('the server that starts on first use does so at its first call', async () => {
    const opened = await http(server.url, '/api/sessions', {
      method: 'POST',
      headers: { ...asUser('tia'), 'x-ferry-session': 'tia-tab-1' },
    });
    expect(opened.status).toBe(201);
    await nextEvent(connected('inject', 'tia'));
    expect(events.some(connected('merge', 'tia'))).toBe(false);
    await http(server.url, '/api/servers/merge/tools', { headers: asUser('tia') });
    await nextEvent(connected('merge', 'tia'));
  });
});
