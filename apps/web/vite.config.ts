import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt)$/;

/**
 * A .br and a .gz beside every text file of the build, compressed once at the highest levels:
 * Ferry (apps/ferry/src/routes/web.ts, @fastify/static `preCompressed`) serves the one the
 * browser's Accept-Encoding asks for instead of compressing on every request.
 */
function precompress(): Plugin {
  return {
    name: 'ferry-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => COMPRESSIBLE.test(name))
          .map(async (name) => {
            const path = join(dir, name);
            const data = await readFile(path);
            const [gz, br] = await Promise.all([
              gzipAsync(data, { level: 9 }),
              brotliAsync(data, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
                },
              }),
            ]);
            // Only where it saves bytes: without a .br/.gz the file is served as it is.
            await Promise.all([
              gz.length < data.length ? writeFile(`${path}.gz`, gz) : undefined,
              br.length < data.length ? writeFile(`${path}.br`, br) : undefined,
            ]);
          }),
      );
    },
  };
}

// @ferry/contract is used from its TypeScript sources (no Node I/O in it), like everywhere else.
export default defineConfig({
  plugins: [react(), precompress()],
  resolve: { conditions: ['ferry-source', 'browser', 'module', 'import', 'default'] },
  // No source maps: they would publish the sources; Ferry also refuses to serve *.map.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
});
