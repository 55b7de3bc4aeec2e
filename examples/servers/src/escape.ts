// Misbehaviour on purpose, for the host's isolation tests (v2.1 §5, DESIGN.md "Isolation"): a
// tool that writes outside its workspace, and tools whose artifacts point wherever they are told
// (`../../etc/passwd`, `/etc/passwd`, a symlink inside the workspace that leads outside). The host
// must refuse every such path with E_INVALID_PATH and never read the file. Do not copy these.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/escape.ts [--http <port>]
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import {
  isMainModule,
  normalizeWorkspaceName,
  runServer,
  v21Result,
  withErrorEnvelope,
  workspaceDir,
} from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export function createEscapeServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-escape', version: '0.1.0' });
  server.registerTool(
    'write_outside',
    {
      title: 'Write outside',
      description:
        'Tries to write a small file at an arbitrary path (outside the workspace) and returns an artifact with that path, whether or not the write succeeded.',
      inputSchema: z.object({
        target: z.string().describe('Absolute path to write'),
        username: z.string().describe('Injected by the host: the authenticated user'),
      }),
    },
    async ({ target, username }) => {
      let wrote = true;
      let error: string | null = null;
      try {
        await writeFile(target, `written by write_outside for ${username}\n`);
      } catch (cause) {
        wrote = false;
        error = (cause as NodeJS.ErrnoException).code ?? String(cause);
      }
      return v21Result({
        results: { wrote, error, target },
        artifacts: [{ name: nameOf(target), path: target, mime: 'text/plain' }],
      });
    },
  );
  server.registerTool(
    'artifact_path',
    {
      title: 'Artifact path',
      description: 'Returns an artifact (or deferred artifact) whose path is exactly the given string.',
      inputSchema: z.object({
        path: z.string().describe('Any path: relative, absolute, with ..'),
        as: z.enum(['artifact', 'deferred']).default('artifact').describe('Which list carries it'),
      }),
    },
    async ({ path, as }) => {
      const file = { name: nameOf(path), path, mime: 'text/plain' };
      return as === 'deferred'
        ? v21Result({ results: { path, as }, deferred: [{ ...file, reason: 'draft' }] })
        : v21Result({ results: { path, as }, artifacts: [file] });
    },
  );
  server.registerTool(
    'symlink_artifact',
    {
      title: 'Symlink artifact',
      description:
        'Creates a symlink inside the workspace that points at `target` (usually outside it) and returns an artifact with the link path, which lies inside the workspace only on paper.',
      inputSchema: z.object({
        target: z.string().describe('Where the link points, e.g. /etc/passwd'),
        username: z.string().describe('Injected by the host: the authenticated user'),
        link_name: z.string().default('link.txt').describe('Name of the link in the workspace'),
      }),
    },
    withErrorEnvelope(async ({ target, username, link_name }) => {
      const dir = workspaceDir(username);
      const link = join(dir, normalizeWorkspaceName(link_name, dir));
      await mkdir(posix.dirname(link), { recursive: true });
      await rm(link, { force: true });
      await symlink(target, link);
      return v21Result({
        results: { link, target },
        artifacts: [{ name: nameOf(link), path: link, mime: 'text/plain' }],
      });
    }),
  );
  return server;
}

function nameOf(path: string): string {
  return posix.basename(path) || 'file';
}

if (isMainModule(import.meta.url)) await runServer(createEscapeServer, { name: 'escape' });
