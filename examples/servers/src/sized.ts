// For tests of the host's size-based processing (v2.1 §6.2: a file at most base64_size_limit_mb
// goes inline as b64, a larger one as a storage reference): `sized_files` writes files of exact
// sizes into /tmp/{username}/ and returns them as path artifacts and deferred artifacts, with
// meta_data. The bytes are a fixed pattern of prime length, byte i of a file being
// PATTERN[i % 251] with PATTERN[k] = (k * 97 + 13) % 256, so no read chunk or 3-byte base64 group
// lines up with it and a test can recompute any file. Large files are written in 1 MiB chunks.
// Started by path by apps/ferry/test/routes/call-v21-form*.test.ts; not in ferry.config.json.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/sized.ts [--http <port>]
import { isMainModule, runServer, v21Result, writeArtifact } from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const PATTERN = Buffer.from(Array.from({ length: 251 }, (_, i) => (i * 97 + 13) % 256));
const CHUNK = 1024 * 1024;

/** `length` bytes of a file, from byte `offset` on. */
function patternSlice(offset: number, length: number): Buffer {
  const start = offset % PATTERN.length;
  const rotated = Buffer.concat([PATTERN.subarray(start), PATTERN.subarray(0, start)]);
  return Buffer.alloc(length).fill(rotated);
}

async function* patternChunks(size: number): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < size; offset += CHUNK)
    yield patternSlice(offset, Math.min(CHUNK, size - offset));
}

function sizedFileName(index: number, size: number, deferred = false): string {
  return `${deferred ? 'draft' : 'file'}-${index}-${size}.bin`;
}

export function createSizedServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-sized', version: '0.1.0' });
  const sizes = z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(1024 * 1024 * 1024),
    )
    .max(20);
  server.registerTool(
    'sized_files',
    {
      description:
        'Writes files of the given sizes (bytes) and returns them as artifacts and deferred artifacts.',
      inputSchema: z.object({
        username: z.string(),
        sizes,
        deferred_sizes: sizes.default([]),
      }),
    },
    async ({ username, sizes: artifactSizes, deferred_sizes }) => {
      const artifacts = [];
      for (const [index, size] of artifactSizes.entries()) {
        artifacts.push(
          await writeArtifact(username, sizedFileName(index, size), patternChunks(size), {
            mime: 'application/octet-stream',
            description: `${size} bytes`,
            category: 'dataset',
            autoOpen: index === 0,
          }),
        );
      }
      const deferred = [];
      for (const [index, size] of deferred_sizes.entries()) {
        const name = sizedFileName(index, size, true);
        const written = await writeArtifact(username, name, patternChunks(size), {
          mime: 'application/octet-stream',
        });
        deferred.push({
          name,
          path: written.path,
          mime: 'application/octet-stream',
          description: `draft of ${size} bytes`,
          reason: 'needs_editing',
          next_actions: ['Edit it'],
          expires_hours: 24,
        });
      }
      return v21Result({
        results: { files: artifactSizes.length, deferred: deferred_sizes.length },
        metaData: { sizes: artifactSizes, deferred_sizes },
        retryable: true,
        artifacts,
        deferred,
        display: { open_canvas: false, storage_action: 'store' },
      });
    },
  );
  return server;
}

if (isMainModule(import.meta.url)) await runServer(createSizedServer, { name: 'sized' });
