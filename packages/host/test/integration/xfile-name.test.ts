// SEP-2356 final against the real xfile example over stdio and Streamable HTTP: `store_named_document` takes a
// document (x-mcp-file) and its name in an ordinary `document_name` argument. Ferry sends the
// picked file as a data URI without `name=` and fills `document_name` from the same pick, whatever
// the model wrote; a server set to `xMcpFileNameParam` gets the earlier draft's `name=` as well.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/host.js';
import { resolveConventions } from '../../src/pipeline/resolve-conventions.js';
import { type ExampleHost, startExampleHost } from '../support/example-host.js';

const CSV = 'region,sales\nNorth,120\n';
const NAME = 'Q3 sales (final).csv';

let env: ExampleHost;
let host: Host;
let owner: string;
let fileId: string;

beforeAll(async () => {
  env = await startExampleHost({
    server: 'xfile',
    prefix: 'ferry-xfile-name-',
    servers: (xfile, remote) => ({
      xfile,
      'xfile-draft': { ...xfile, xMcpFileNameParam: true },
      'xfile-http': remote,
      'xfile-http-draft': { ...remote, xMcpFileNameParam: true },
    }),
  });
  host = env.host;
  owner = await env.storage.files.ensureUser('alice');
  fileId = (await env.storage.files.put(owner, NAME, Readable.from([Buffer.from(CSV)]), { mime: 'text/csv' }))
    .id;
}, 60_000);

afterAll(() => env?.close());

const call = (server: string, args: Record<string, unknown>, picked = true) =>
  host.callTool({
    user: { owner, username: 'alice' },
    server,
    tool: 'store_named_document',
    arguments: args,
    ...(picked ? { fileInputs: { document: fileId } } : {}),
  });

describe('x-mcp-file with a paired filename argument (xfile store_named_document)', () => {
  it('the tool schema pairs document_name with document', async () => {
    const tool = (await host.listTools('xfile', 'alice')).find((t) => t.name === 'store_named_document');
    const conventions = resolveConventions(tool?.inputSchema);
    expect(conventions.fileInputs.map((input) => input.path[0])).toEqual(['document']);
    expect(conventions.fileNameArguments).toEqual([
      { argument: 'document_name', fileInput: 'document', rule: 'name' },
    ]);
  });

  it.each(['xfile', 'xfile-http'])(
    '%s: the server gets the stored name in document_name and a data URI without name=',
    async (server) => {
      const r = await call(server, { document_name: 'invented-by-the-model.csv' });
      expect(r.status, JSON.stringify(r.forModel)).toBe('finished');
      expect(r.forModel.results).toEqual({
        document_name: NAME,
        name_param: null,
        media_type: 'text/csv',
        byte_size: CSV.length,
        sha256: createHash('sha256').update(CSV).digest('hex'),
      });
      expect(r.transcript).toEqual({ document: NAME, document_name: NAME });
    },
  );

  it.each(['xfile-draft', 'xfile-http-draft'])(
    '%s: xMcpFileNameParam: the earlier draft also gets name= in the data URI',
    async (server) => {
      const r = await call(server, {});
      expect(r.status, JSON.stringify(r.forModel)).toBe('finished');
      expect(r.forModel.results).toMatchObject({ document_name: NAME, name_param: NAME });
    },
  );

  it('a file over maxSize is refused before the call, saying how larger files reach such a tool', async () => {
    const big = await env.storage.files.put(
      owner,
      'big.csv',
      Readable.from([Buffer.alloc(1024 * 1024 + 1, 97)]),
      {
        mime: 'text/csv',
      },
    );
    const r = await host.callTool({
      user: { owner, username: 'alice' },
      server: 'xfile',
      tool: 'store_named_document',
      arguments: {},
      fileInputs: { document: big.id },
    });
    expect(r.forModel.error?.code).toBe('E_FILE_TOO_LARGE');
    expect(r.forModel.error?.message).toMatch(/^big\.csv is 1048577 bytes; the limit is 1048576 bytes/);
    expect(r.forModel.error?.message).toContain('asks for them with an upload link during the call');
  });

  it('without a pick the model cannot supply the name: the argument is dropped', async () => {
    const r = await call('xfile', { document_name: 'invented.csv' }, false);
    // Neither argument reaches the tool, so its own input validation refuses the call.
    expect(r.transcript).toEqual({});
    expect(r.forModel.isError).toBe(true);
  });
});
