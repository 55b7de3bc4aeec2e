// URL-mode elicitation (MCP SEP-1036): `link_account` needs the user to sign in to a third-party
// service, which must not happen through the MCP client (the password is for that site alone).
// So the tool asks the client to show the user a link (`elicitation/create`, mode "url") to a
// sign-in page this server serves itself on 127.0.0.1 (an ephemeral port), and reports whether the
// page was visited: a stand-in for an OAuth "connect" page. The client answers accept (the user
// opened it), decline or cancel; it never sees what happens on the page.
//
// Both protocol eras, one handler:
//   - 2026-07-28: the question rides the call's `input_required` result (multi round-trip); the
//     retried call carries the answer, and `requestState` names the sign-in it is about.
//   - 2025-11-25: a real `elicitation/create` request with an `elicitationId`; once the page has
//     been visited the server sends `notifications/elicitation/complete` with that id (the
//     notification does not exist on 2026-07-28).
// After an accept the tool waits (reporting progress, so the host's watchdog sees it is alive) for
// the visit, at most `wait_seconds`.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/signin.ts [--http <port>]
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainModule, reportProgress, runServer, v21Result } from '@ferry/server-kit';
import {
  type CallToolResult,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

export const SIGNIN_PATH = '/signin/';
/** Sign-ins kept at most (the oldest go first), and for how long. */
const MAX_SIGNINS = 256;
const SIGNIN_TTL_MS = 15 * 60_000;
const PROGRESS_EVERY_MS = 5_000;

interface SignIn {
  service: string;
  visits: number;
  created: number;
  /** Resolves the waits for the first visit. */
  visited: Promise<void>;
  markVisited(): void;
}

// One store and one page server per process: served over HTTP, every request gets its own
// McpServer, and the retried call of a multi round-trip may arrive on another one.
const signIns = new Map<string, SignIn>();
let pages: Promise<{ server: Server; origin: string }> | undefined;

/** The sign-in pages, started on the first question; unref'd so they never keep the process up. */
function pageServer(): Promise<{ server: Server; origin: string }> {
  pages ??= new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const signIn = path.startsWith(SIGNIN_PATH) ? signIns.get(path.slice(SIGNIN_PATH.length)) : undefined;
      if (req.method !== 'GET' || signIn === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('No such sign-in (it may have expired)\n');
        return;
      }
      signIn.visits += 1;
      signIn.markVisited();
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'none'",
      });
      res.end(
        `<!doctype html><title>Signed in</title><h1>Signed in to ${escapeHtml(signIn.service)}</h1><p>Your account is linked. You can close this tab.</p>\n`,
      );
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
  return pages;
}

async function newSignIn(service: string): Promise<{ id: string; url: string }> {
  const { origin } = await pageServer();
  const now = Date.now();
  for (const [id, old] of signIns) {
    if (signIns.size < MAX_SIGNINS && now - old.created < SIGNIN_TTL_MS) break;
    signIns.delete(id);
  }
  // 128 random bits: the id is the only thing that ties the page to this call, so it must not be
  // guessable (it is also the requestState the client echoes back).
  const id = randomBytes(16).toString('base64url');
  let markVisited!: () => void;
  const visited = new Promise<void>((resolve) => {
    markVisited = resolve;
  });
  signIns.set(id, { service, visits: 0, created: now, visited, markVisited });
  return { id, url: `${origin}${SIGNIN_PATH}${id}` };
}

/** Waits for the page to be visited, with progress meanwhile; false when `seconds` pass first. */
async function waitForVisit(signIn: SignIn, seconds: number, ctx: ServerContext): Promise<boolean> {
  if (signIn.visits > 0) return true;
  const deadline = Date.now() + seconds * 1000;
  let step = 0;
  while (Date.now() < deadline) {
    step += 1;
    await reportProgress(ctx, step, undefined, `waiting for you to sign in to ${signIn.service}`);
    const wait = Math.min(PROGRESS_EVERY_MS, deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    const visited = await Promise.race([
      signIn.visited.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), wait);
      }),
    ]);
    clearTimeout(timer);
    if (visited) return true;
    if (ctx.mcpReq.signal.aborted) return false;
  }
  return signIn.visits > 0;
}

function outcome(signIn: SignIn, action: string, linked: boolean): CallToolResult {
  return v21Result({ results: { service: signIn.service, action, linked, visits: signIn.visits } });
}

export function createSigninServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-signin', version: '0.1.0' });
  const legacy = () => {
    const version = server.server.getNegotiatedProtocolVersion();
    return version === undefined || version < '2026-07-28';
  };

  server.registerTool(
    'link_account',
    {
      title: 'Link an account',
      description:
        "Links the user's account at a third-party service: asks the user to open the service's sign-in page in their browser (MCP URL-mode elicitation), then reports whether they signed in.",
      inputSchema: z.object({
        service: z.string().min(1).max(80).default('Example Cloud').describe('The service to link'),
        wait_seconds: z
          .number()
          .min(0)
          .max(600)
          .default(120)
          .describe('How long to wait for the sign-in after the user said they opened the page'),
      }),
    },
    async ({ service, wait_seconds }, ctx) => {
      const message = `Sign in to ${service} to link it to your account.`;
      if (legacy()) {
        // 2025-11-25: a request of its own, then the completion notification.
        const { id, url } = await newSignIn(service);
        const signIn = signIns.get(id) as SignIn;
        const answer = await ctx.mcpReq.elicitInput({ mode: 'url', message, url, elicitationId: id });
        if (answer.action !== 'accept') return outcome(signIn, answer.action, false);
        const linked = await waitForVisit(signIn, wait_seconds, ctx);
        if (linked) {
          await ctx.mcpReq.notify({
            method: 'notifications/elicitation/complete',
            params: { elicitationId: id },
          });
        }
        return outcome(signIn, 'accept', linked);
      }
      // 2026-07-28: ask through the result; the retry brings the answer and the sign-in's id back.
      const state = ctx.mcpReq.requestState();
      const asked = typeof state === 'string' ? signIns.get(state) : undefined;
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'signin');
      if (asked === undefined || answer.kind !== 'elicit') {
        const { id, url } = await newSignIn(service);
        return inputRequired({
          inputRequests: { signin: inputRequired.elicitUrl({ message, url }) },
          requestState: id,
        });
      }
      if (answer.action !== 'accept') return outcome(asked, answer.action, false);
      return outcome(asked, 'accept', await waitForVisit(asked, wait_seconds, ctx));
    },
  );
  return server;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );
}

if (isMainModule(import.meta.url)) await runServer(createSigninServer, { name: 'signin' });
