// maxResultBytes over Streamable HTTP: an answer over the limit, as an event stream or as a JSON
// body, is cut off as it arrives (the body is never read past the limit), only its call fails
// with E_RESULT_TOO_LARGE, and the session goes on serving.
import { FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureServer } from '../support/fixture-server.js';
import { startHttpMcpServer, type TestHttpServer } from '../support/http-server.js';
import { never, poolPerTest, textOf } from '../support/pool-per-test.js';

const MIB = 1024 * 1024;
const start = poolPerTest();

describe.each([
  ['an event stream', false],
  ['a JSON body', true],
])('Streamable HTTP answering with %s', (_, jsonResponse) => {
  let http: TestHttpServer;
  beforeAll(async () => {
    http = await startHttpMcpServer(() => createFixtureServer('fixture-http'), { jsonResponse });
  });
  afterAll(() => http.close());

  it('fails a call whose answer is over maxResultBytes and keeps the session', async () => {
    const { pool } = start({ remote: { transport: 'http', url: http.url } }, { maxResultBytes: MIB });
    const connection = await pool.get('remote', 'alice');
    const failure = await connection
      .callTool({ name: 'big', arguments: { bytes: 2 * MIB } }, { signal: never() })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(FerryError);
    expect(failure).toMatchObject({
      code: 'E_RESULT_TOO_LARGE',
      message: "The tool's result is over the 1 MiB limit (maxResultBytes); Ferry did not read it",
      details: { limit_bytes: MIB },
    });
    const small = await connection.callTool(
      { name: 'big', arguments: { bytes: MIB / 2 } },
      { signal: never() },
    );
    expect(textOf(small)).toHaveLength(MIB / 2);
    expect(await pool.get('remote', 'alice')).toBe(connection);
  });
});
