// Log lines of /api requests carry the request id, the user once authenticated and, on the
// /api/calls/{id} routes, the call id: "request completed" included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, http, PROXY_AUTH, settledCall, startTestApp, type TestApp } from '../support/start-app.js';

const lines: Record<string, unknown>[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    app: { auth: PROXY_AUTH },
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
  });
}, 60_000);
afterAll(async () => t?.close());

describe('request log lines', () => {
  it('name the user and the call', async () => {
    const started = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0.01, steps: 1 } }),
    });
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    await settledCall(t.url, callId, ALICE);

    const completed = lines.filter((line) => line.msg === 'request completed');
    const ofCall = completed.filter((line) => line.callId === callId);
    expect(ofCall.length).toBeGreaterThan(0);
    for (const line of ofCall) {
      expect(line).toMatchObject({ user: 'alice', reqId: expect.any(String) });
    }
    const post = completed.find(
      (line) =>
        line.user === 'alice' &&
        line.callId === undefined &&
        (line.res as { statusCode?: number })?.statusCode === 202,
    );
    expect(post).toBeDefined();

    // Unauthenticated: a request id, no user.
    expect((await http(t.url, '/api/status')).status).toBe(401);
    const refused = lines.filter(
      (line) => line.msg === 'request completed' && (line.res as { statusCode?: number })?.statusCode === 401,
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.at(-1)).not.toHaveProperty('user');
    expect(refused.at(-1)).toHaveProperty('reqId');
  });
});
