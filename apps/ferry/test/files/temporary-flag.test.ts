// Whether a file a tool made is session-only ("temporary") has one source of truth, the stored
// record's `persist`: the call's file_stored events, its answer and GET /api/files agree, with
// persist_files_across_sessions off (every file session-only) and on (only storage_action =
// temporary). The tool is a small Streamable HTTP MCP server (JSON responses) written here with
// node:http, because no example server asks for storage_action = temporary.
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import { http, settledCall, startTestApp, type TestApp } from '../support/start-app.js';

interface NoteServer {
  url: string;
  close(): Promise<void>;
}

/** `make_note(name, storage_action)`: a v2.1 result with one inline text artifact. */
async function startNoteServer(): Promise<NoteServer> {
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: number | string;
      method: string;
      params?: Record<string, unknown>;
    };
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply(message.method, message.params ?? {}) }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function reply(method: string, params: Record<string, unknown>): Record<string, unknown> {
  switch (method) {
    case 'initialize':
      return {
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'notes', version: '1.0.0' },
        },
      };
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return {
        result: {
          tools: [
            {
              name: 'make_note',
              description: 'Writes a note file, stored as display.storage_action says',
              inputSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  storage_action: { type: 'string', enum: ['store', 'temporary'] },
                },
                required: ['name', 'storage_action'],
              },
            },
          ],
        },
      };
    case 'tools/call': {
      const args = params.arguments as { name: string; storage_action: string };
      const result = {
        results: { wrote: args.name },
        artifacts: [
          { name: args.name, b64: Buffer.from(`note ${args.name}`).toString('base64'), mime: 'text/plain' },
        ],
        display: { storage_action: args.storage_action },
      };
      return { result: { content: [{ type: 'text', text: JSON.stringify(result) }] } };
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

interface SeenFile {
  name: string;
  temporary: boolean;
}

/** Runs make_note and reads `temporary` where the user meets the file: events, answer, file list. */
async function makeNote(t: TestApp, name: string, storageAction: 'store' | 'temporary') {
  const start = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      server: 'notes',
      tool: 'make_note',
      arguments: { name, storage_action: storageAction },
    }),
  });
  expect(start.status, start.text).toBe(202);
  const { callId } = start.json<{ callId: string }>();
  const detail = await settledCall<{ status: string; response: { forUi: { files: SeenFile[] } } | null }>(
    t.url,
    callId,
  );
  expect(detail.status).toBe('finished');

  // A settled call's stream replays every event, then ends.
  const stream = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), resolve).on('error', reject);
  });
  const events: { type: string; file?: SeenFile }[] = [];
  await parseStream(stream, (event) => events.push(JSON.parse(event.data)));
  expect(events.map((event) => event.type)).toContain('finished');

  const list = await http(t.url, `/api/files?q=${encodeURIComponent(name)}`);
  expect(list.status, list.text).toBe(200);
  const pick = (files: SeenFile[]) =>
    files.filter((file) => file.name === name).map((file) => file.temporary);
  return {
    event: pick(events.flatMap((event) => (event.type === 'file_stored' && event.file ? [event.file] : []))),
    answer: pick(detail.response?.forUi.files ?? []),
    list: pick(list.json<{ items: SeenFile[] }>().items),
  };
}

let notes: NoteServer;
beforeAll(async () => {
  notes = await startNoteServer();
});
afterAll(async () => notes?.close());

for (const persist of [false, true]) {
  describe(`persist_files_across_sessions ${persist ? 'on' : 'off'}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        storage: { persist_files_across_sessions: persist },
        servers: { notes: { transport: 'http', url: notes.url } },
      });
    }, 60_000);
    afterAll(async () => t?.close());

    it(`a normal output reads temporary=${!persist} in its event, the answer and the file list`, async () => {
      expect(await makeNote(t, `kept-${persist}.txt`, 'store')).toEqual({
        event: [!persist],
        answer: [!persist],
        list: [!persist],
      });
    });

    it('storage_action=temporary reads temporary=true in all three', async () => {
      expect(await makeNote(t, `scratch-${persist}.txt`, 'temporary')).toEqual({
        event: [true],
        answer: [true],
        list: [true],
      });
    });
  });
}
