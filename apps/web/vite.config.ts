import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// @ferry/contract is used from its TypeScript sources (no Node I/O in it), like everywhere else.
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['ferry-source', 'browser', 'module', 'import', 'default'] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
});
