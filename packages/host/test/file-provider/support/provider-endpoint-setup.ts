// The provider endpoint over a real FileStore and a real workspace directory in a temp dir: what
// the endpoint and socket tests both stand on. The workspace is `workspace-alice` in the storage's
// temp dir, served to every username; the tests write the files they read into it.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createProviderEndpoint,
  type ProviderEndpoint,
} from '../../../src/file-provider/provider-endpoint.js';
import { parseFileProviderSettings } from '../../../src/file-provider/provider-settings.js';
import { createProviderTokens, type ProviderTokens } from '../../../src/file-provider/provider-tokens.js';
import type {
  FileProviderSettings,
  ProviderCallbackEvent,
} from '../../../src/file-provider/provider-types.js';
import { openTestStorage, type TestStorage } from '../../pipeline/support/test-storage.js';

/** The config's defaults, turned on. */
export const PROVIDER_SETTINGS: FileProviderSettings = parseFileProviderSettings({ enabled: true });

export interface ProviderEndpointSetup {
  storage: TestStorage;
  /** The workspace directory on the host, created empty. */
  workspace: string;
  tokens: ProviderTokens;
  endpoint: ProviderEndpoint;
}

export async function setUpProviderEndpoint(
  options: { now?: () => number; onCallback?: (event: ProviderCallbackEvent) => void } = {},
): Promise<ProviderEndpointSetup> {
  const storage = await openTestStorage();
  const workspace = join(storage.dir, 'workspace-alice');
  await mkdir(workspace, { recursive: true });
  const tokens = createProviderTokens({ defaultTtlSeconds: 3600, now: options.now });
  const endpoint = createProviderEndpoint({
    tokens,
    settings: PROVIDER_SETTINGS,
    scopeFor: async (username) => ({
      username,
      owner: storage.owner,
      workspaceHostDir: workspace,
      files: storage.files,
      settings: PROVIDER_SETTINGS,
    }),
    onCallback: options.onCallback,
  });
  return { storage, workspace, tokens, endpoint };
}
