// A real Ferry from startServer (config file → storage → host → app, as `ferry serve` runs) in a
// fresh temp dir, configured with one remote server "remote" behind a loopback authorization
// server (@ferry/test-helpers/oauth-servers); tests play the browser against `ferry.url`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ProtectedMcpServer,
  startProtectedRemote,
  type TestOAuthServer,
} from '@ferry/test-helpers/oauth-servers';
import { type RunningServer, startServer } from '../../src/server.js';

export interface OAuthFerry {
  dir: string;
  as: TestOAuthServer;
  mcp: ProtectedMcpServer;
  ferry: RunningServer;
  /** Closes Ferry, the MCP server and the authorization server; removes the temp dir. */
  close(): Promise<void>;
}

/** `config`: more of ferry.config.json beside `servers` (e.g. `auth`). */
export async function startOAuthFerry(
  prefix: string,
  config: Record<string, unknown> = {},
): Promise<OAuthFerry> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const remote = await startProtectedRemote().catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  let ferry: RunningServer | undefined;
  const close = async () => {
    await ferry?.close();
    await remote.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const configPath = join(dir, 'ferry.config.json');
    await writeFile(
      configPath,
      JSON.stringify({ ...config, servers: { remote: { transport: 'http', url: remote.mcp.url } } }),
    );
    ferry = await startServer({ cwd: dir, env: {}, configPath, port: 0, logLevel: 'silent' });
    return { dir, as: remote.as, mcp: remote.mcp, ferry, close };
  } catch (error) {
    await close();
    throw error;
  }
}
