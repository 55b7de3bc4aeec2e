// The signin example (URL-mode elicitation, SEP-1036) against a real SDK client, over stdio and
// Streamable HTTP, in both protocol eras: 2026-07-28 (the question inside an input_required
// result, auto-fulfilled by the client's elicitation/create handler) and 2025-11-25 (a real
// elicitation/create request with an elicitationId, then notifications/elicitation/complete).
import {
  type HttpServerProcess,
  payloadOf,
  REPO_ROOT,
  serverCommand,
  startHttp,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Era = 'modern' | 'legacy';
type Action = 'accept' | 'decline' | 'cancel';

interface Asked {
  mode?: string;
  message: string;
  url?: string;
  elicitationId?: string;
}

let root: TempDir;
let http: HttpServerProcess;
beforeAll(async () => {
  root = await tempDir();
  http = await startHttp('signin', root.path);
}, 30_000);
afterAll(async () => {
  await http?.stop();
  await root?.cleanup();
});

/** A client that declares URL-mode elicitation and answers each question with `answer`. */
async function connect(transport: 'stdio' | 'http', era: Era, answer: (asked: Asked) => Promise<Action>) {
  const client = new Client(
    { name: 'test-signin', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      ...(era === 'modern' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    },
  );
  const asked: Asked[] = [];
  const completed: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as Asked;
    asked.push(params);
    return { action: await answer(params) };
  });
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    completed.push(notification.params.elicitationId);
  });
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({ ...serverCommand('signin'), cwd: REPO_ROOT })
      : new StreamableHTTPClientTransport(http.url),
  );
  return { client, asked, completed };
}

const link = (client: Client, args: Record<string, unknown> = {}) =>
  client.callTool({ name: 'link_account', arguments: { service: 'Acme Drive', ...args } });

// Not over HTTP in the 2025 era: its stateless serving has no session to carry a request from
// the server to the client (tested last).
describe.each([
  ['stdio', 'modern'],
  ['stdio', 'legacy'],
  ['http', 'modern'],
] as const)('signin over %s, %s era', (transport, era) => {
  it('asks to open its own loopback sign-in page; opening it links the account', async () => {
    const { client, asked, completed } = await connect(transport, era, async (question) => {
      // The user's browser: the page is served by the server on an ephemeral loopback port.
      const page = await fetch(question.url as string);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Signed in to Acme Drive');
      return 'accept';
    });
    try {
      const result = await link(client);
      expect(payloadOf(result).results).toEqual({
        service: 'Acme Drive',
        action: 'accept',
        linked: true,
        visits: 1,
      });
      expect(asked).toHaveLength(1);
      const question = asked[0] as Asked;
      expect(question).toMatchObject({
        mode: 'url',
        message: 'Sign in to Acme Drive to link it to your account.',
      });
      expect(question.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/signin\/[\w-]{22}$/);
      if (era === 'legacy') {
        // 2025-11-25: the id names the sign-in, and its completion is announced.
        expect(question.elicitationId).toBe(question.url?.split('/').at(-1));
        expect(completed).toEqual([question.elicitationId]);
      } else {
        expect(question.elicitationId).toBeUndefined();
        expect(completed).toEqual([]);
      }
    } finally {
      await client.close();
    }
  });

  it.each(['decline', 'cancel'] as const)(
    'a %s reaches the tool, and the page was never visited',
    async (action) => {
      const { client, asked } = await connect(transport, era, async () => action);
      try {
        const result = await link(client);
        expect(payloadOf(result).results).toEqual({
          service: 'Acme Drive',
          action,
          linked: false,
          visits: 0,
        });
        // The page of a declined sign-in still answers (nothing opened it): a visit now is the first.
        const page = await fetch(asked[0]?.url as string);
        expect(page.status).toBe(200);
      } finally {
        await client.close();
      }
    },
  );

  it('an accept without a visit is reported as not linked once the wait is over', async () => {
    const { client } = await connect(transport, era, async () => 'accept');
    try {
      const result = await link(client, { wait_seconds: 0.2 });
      expect(payloadOf(result).results).toEqual({
        service: 'Acme Drive',
        action: 'accept',
        linked: false,
        visits: 0,
      });
    } finally {
      await client.close();
    }
  });
});

it('the page server answers 404 for an unknown sign-in and anything but GET', async () => {
  const { client, asked } = await connect('http', 'modern', async () => 'decline');
  try {
    await link(client);
    const url = new URL(asked[0]?.url as string);
    expect((await fetch(new URL('/signin/not-a-sign-in', url))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(404);
    expect((await fetch(url)).status).toBe(200);
  } finally {
    await client.close();
  }
});

it('a 2025-era client over stateless HTTP cannot be asked: the tool says so and asks nothing', async () => {
  const { client, asked } = await connect('http', 'legacy', async () => 'accept');
  try {
    const result = await link(client);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'Client does not support url elicitation.' }]);
    expect(asked).toEqual([]);
  } finally {
    await client.close();
  }
});
