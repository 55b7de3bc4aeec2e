// Config entries for the real servers the connection tests start: the fixture server (run with
// tsx) and the published @modelcontextprotocol/server-everything and server-filesystem, run
// unmodified from node_modules with this Node binary.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ServerConfigInput } from '../../src/servers/server-config.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURE_SERVER = fileURLToPath(new URL('./fixture-server.ts', import.meta.url));
const require = createRequire(import.meta.url);
export const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

type StdioInput = Extract<ServerConfigInput, { transport: 'stdio' }>;

/** The fixture server over stdio; `--import tsx` resolves from the repository root (cwd). */
export function fixtureServer(overrides: Partial<StdioInput> = {}): StdioInput {
  return {
    transport: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', FIXTURE_SERVER],
    cwd: REPO_ROOT,
    ...overrides,
  };
}

export function everythingServer(overrides: Partial<StdioInput> = {}): StdioInput {
  return { transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], ...overrides };
}

/** server-filesystem allowed to read and write `directory` only. */
export function filesystemServer(directory: string, overrides: Partial<StdioInput> = {}): StdioInput {
  return { transport: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, directory], ...overrides };
}
