// URL-mode elicitation (SEP-1036) end to end through the real pool: the signin example asks the
// user to open its own loopback sign-in page; the host emits the question as an `elicitation`
// event with the link and the server's name, never touches the link itself, and sends back the
// user's action without content. The test plays the user's browser by fetching the page. Each case
// runs over stdio on 2026-07-28 (the question inside an `input_required` result), over stdio pinned
// to 2025-11-25 (a real `elicitation/create` request with an elicitationId) and over Streamable
// HTTP (2026-07-28).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/host.js';
import {
  answerQuestion,
  type ExampleHost,
  elicitationServers,
  type Question,
  startAskingCall,
  startExampleHost,
} from '../support/example-host.js';

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/signin\/[\w-]{22}$/;

let env: ExampleHost;
let host: Host;
let alice: string;
let bob: string;

beforeAll(async () => {
  env = await startExampleHost({
    server: 'signin',
    prefix: 'ferry-url-elicit-',
    servers: (signin, remote) => elicitationServers('signin', signin, remote),
    host: { elicitationTimeoutSeconds: 5 },
  });
  host = env.host;
  alice = await env.storage.files.ensureUser('alice');
  bob = await env.storage.files.ensureUser('bob');
}, 60_000);

afterAll(() => env?.close());

/** Starts link_account and resolves with the question once it is asked. */
const startLink = (server: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
  startAskingCall(host, {
    user: { owner: alice, username: 'alice' },
    server,
    tool: 'link_account',
    arguments: { service: 'Acme Drive', ...args },
    ...(signal && { signal }),
  });

const reply = (
  asked: Question,
  action: 'accept' | 'decline' | 'cancel',
  extra: Record<string, unknown> = {},
) => answerQuestion(host, alice, asked, action, extra);

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
