// One example server for a whole describe block: a fresh workspace root and a connected client,
// made in beforeAll and closed in afterAll, so each test file does not repeat the setup.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll } from 'vitest';
import {
  connectExample,
  type ExampleConnection,
  type ExampleTransport,
  type ServerName,
  type TempDir,
  tempDir,
} from './example-servers.js';

export interface ExampleServerSuite {
  /** The workspace root the server runs with (FERRY_WORKSPACE_ROOT). */
  readonly root: string;
  readonly client: Client;
}

/**
 * Registers the beforeAll/afterAll of the calling describe block; the fields are there once its
 * beforeAll ran, so read them inside tests and hooks registered after this call.
 */
export function useExampleServer(
  name: ServerName,
  transport: ExampleTransport = 'stdio',
): ExampleServerSuite {
  let root: TempDir | undefined;
  let connection: ExampleConnection | undefined;
  beforeAll(async () => {
    root = await tempDir();
    connection = await connectExample(name, transport, root.path);
  });
  afterAll(async () => {
    await connection?.close();
    await root?.cleanup();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${name} server is read before its beforeAll ran`);
    return value;
  };
  return {
    get root() {
      return ready(root).path;
    },
    get client() {
      return ready(connection).client;
    },
  };
}
