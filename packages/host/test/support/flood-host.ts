// The host with the hostile `flood` example server (examples/servers/src/flood.ts, built) over
// stdio, a real FileStore in a temporary directory and pool options of the test's choosing: what the
// intake-limit tests (big and deep results, servers dying mid-call, stderr floods) run against.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { scriptServer } from '@ferry/test-helpers/example-servers';
import { createHost, type Host, type HostOptions } from '../../src/host.js';

const FLOOD_SERVER = {
  ...scriptServer('flood'),
  timeouts: { timeoutSeconds: 30, hardCapSeconds: 120 },
};

export interface FloodHost {
  host: Host;
  storage: OpenedStorage;
  call(
    tool: string,
    args?: Record<string, unknown>,
    options?: { user?: string; onEvent?: (event: CallEvent) => void },
  ): Promise<{ response: ToolCallResponse; events: CallEvent[] }>;
  close(): Promise<void>;
}

export async function openFloodHost(pool: HostOptions['pool'] = { onStderr: () => {} }): Promise<FloodHost> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-flood-'));
  const storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  const host = createHost({
    config: { servers: { flood: FLOOD_SERVER } },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    pool,
  });
  const owners = new Map<string, string>();
  return {
    host,
    storage,
    async call(tool, args = {}, options = {}) {
      const username = options.user ?? 'alice';
      let owner = owners.get(username);
      if (owner === undefined) {
        owner = await storage.files.ensureUser(username);
        owners.set(username, owner);
      }
      const events: CallEvent[] = [];
      const response = await host.callTool(
        { user: { owner, username }, server: 'flood', tool, arguments: args },
        (event) => {
          events.push(event);
          options.onEvent?.(event);
        },
      );
      return { response, events };
    },
    async close() {
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The failure envelope of a response, for short assertions. */
export function failureOf(response: ToolCallResponse) {
  const error = response.forUi.error;
  return {
    status: response.status,
    code: error?.meta_data.error_code,
    message: error?.results.error,
    retryable: error?.meta_data.retryable,
    details: error?.meta_data.details,
  };
}
