// URL-mode elicitation (SEP-1036) end to end through the real pool: the signin example asks the
// user to open its own loopback sign-in page; the host emits the question as an `elicitation`
// event with the link and the server's name, never touches the link itself, and sends back the
// user's action without content. The test plays the user's browser by fetching the page. Each case
// runs over stdio on 2026-07-28 (the question inside an `input_required` result), over stdio pinned
// to 2025-11-25 (a real `elicitation/create` request with an elicitationId) and over Streamable
// HTTP (2026-07-28).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallEvent } from '@ferry/contract';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { type HttpServerProcess, startHttp } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host.js';
import { REPO_ROOT } from '../support/servers.js';

type Question = Extract<CallEvent, { type: 'elicitation' }>;

const signin = {
  transport: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', '--conditions=ferry-source', 'examples/servers/src/signin.ts'],
  cwd: REPO_ROOT,
};
const LINK = /^http:\/\/127\.0\.0\.1:\d+\/signin\/[\w-]{22}$/;

let dir: string;
let http: HttpServerProcess;
let storage: OpenedStorage;
let host: Host;
let alice: string;
let bob: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-url-elicit-'));
  http = await startHttp('signin', join(dir, 'http-workspaces'));
  storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  // One second without progress would time the call out: only a stopped clock survives a user
  // who takes longer than that to decide about the link.
  const quick = { timeouts: { noticeSeconds: [], timeoutSeconds: 1, hardCapSeconds: 30 } };
  const remote = { transport: 'http' as const, url: http.url.href };
  host = createHost({
    config: {
      servers: {
        signin,
        'signin-quick': { ...signin, ...quick },
        'signin-2025': { ...signin, protocol: '2025-11-25' },
        'signin-2025-quick': { ...signin, protocol: '2025-11-25', ...quick },
        'signin-http': remote,
        'signin-http-quick': { ...remote, ...quick },
      },
    },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
    elicitationTimeoutSeconds: 5,
  });
  alice = await storage.files.ensureUser('alice');
  bob = await storage.files.ensureUser('bob');
}, 60_000);

afterAll(async () => {
  await host?.close();
  await http?.stop();
  await storage?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Starts link_account and resolves with the question once it is asked. */
function startLink(server: string, args: Record<string, unknown> = {}, signal?: AbortSignal) {
  const events: CallEvent[] = [];
  let asked!: (event: Question) => void;
  const question = new Promise<Question>((resolve) => {
    asked = resolve;
  });
  const response = host.callTool(
    {
      user: { owner: alice, username: 'alice' },
      server,
      tool: 'link_account',
      arguments: { service: 'Acme Drive', ...args },
      ...(signal && { signal }),
    },
    (event) => {
      events.push(event);
      if (event.type === 'elicitation') asked(event);
    },
  );
  return { events, question, response };
}

const reply = (
  asked: Question,
  action: 'accept' | 'decline' | 'cancel',
  extra: Record<string, unknown> = {},
) =>
  host.answerElicitation({
    callId: asked.callId,
    elicitationId: asked.elicitationId,
    owner: alice,
    action,
    ...extra,
  });

describe.each([
  ['stdio, 2026-07-28', 'signin'],
  ['stdio, 2025-11-25', 'signin-2025'],
  ['Streamable HTTP', 'signin-http'],
] as const)('a link to open (%s)', (_way, server) => {
  it('is asked with the link, the reason and the server; opening it and accepting links the account', async () => {
    const { events, question, response } = startLink(server);
    const asked = await question;
    expect(asked).toMatchObject({
      type: 'elicitation',
      mode: 'url',
      server,
      message: 'Sign in to Acme Drive to link it to your account.',
      requestedSchema: {},
      fileFields: [],
    });
    expect(asked.url).toMatch(LINK);
    // The user's browser opens it (Ferry never does), then the user says so.
    expect((await fetch(asked.url as string)).status).toBe(200);
    // A link question takes no values: refused, and it stays open.
    await expect(reply(asked, 'accept', { content: { password: 'x' } })).rejects.toMatchObject({
      code: 'E_INVALID_INPUT',
    });
    expect(await reply(asked, 'decline', { owner: bob })).toBe(false);
    expect(await reply(asked, 'accept')).toBe(true);
    const done = await response;
    expect(done.status, JSON.stringify(done.forUi.error)).toBe('finished');
    expect(done.forModel.results).toEqual({
      service: 'Acme Drive',
      action: 'accept',
      linked: true,
      visits: 1,
    });
    expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'accept' });
    expect(await reply(asked, 'accept')).toBe(false);
  });

  it.each(['decline', 'cancel'] as const)(
    'a %s reaches the server, and nothing visited the page',
    async (action) => {
      const { events, question, response } = startLink(server);
      const asked = await question;
      expect(await reply(asked, action)).toBe(true);
      const done = await response;
      expect(done.forModel.results).toEqual({ service: 'Acme Drive', action, linked: false, visits: 0 });
      expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action });
    },
  );

  it('the idle clock stands still while the question is open (1 s timeout, 2.5 s to decide)', async () => {
    const { events, question, response } = startLink(`${server}-quick`);
    const asked = await question;
    // A person reading the link and deciding: this wait is the behaviour under test, not a race.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await reply(asked, 'decline');
    const done = await response;
    expect(done.status, JSON.stringify(done.forUi.error)).toBe('finished');
    expect(done.forModel.results).toMatchObject({ action: 'decline' });
    expect(events.some((event) => event.type === 'notice')).toBe(false);
  });
});

it('an unanswered link question is cancelled at its timeout, and the server hears cancel', async () => {
  const { events, response } = startLink('signin');
  const done = await response;
  expect(done.forModel.results).toEqual({
    service: 'Acme Drive',
    action: 'cancel',
    linked: false,
    visits: 0,
  });
  expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'cancel' });
}, 20_000);

it('the user cancelling the call cancels the open link question', async () => {
  const controller = new AbortController();
  const { events, question, response } = startLink('signin', {}, controller.signal);
  await question;
  controller.abort('changed my mind');
  const done = await response;
  expect(done.status).toBe('cancelled');
  expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'cancel' });
});
