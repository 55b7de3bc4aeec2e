import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as kit from '../src/index.js';

describe('the server-kit barrel', () => {
  it('exports the public helpers by name and nothing by default', () => {
    for (const name of [
      'v21Result',
      'v21Error',
      'jsonResult',
      'errorResult',
      'withErrorEnvelope',
      'workspace',
      'workspaceDir',
      'workspaceRoot',
      'resolveWorkspacePath',
      'writeArtifact',
      'deferredArtifact',
      'reportProgress',
      'readInjectedFile',
      'runServer',
      'serveHttp',
      'isMainModule',
      'parseServerArgs',
      'connectFileProvider',
      'unixSocketFetch',
    ]) {
      expect(typeof (kit as Record<string, unknown>)[name], name).toBe('function');
    }
    expect('default' in kit).toBe(false);
  });

  it('re-exports explicitly, never with export *', () => {
    const source = readFileSync(join(import.meta.dirname, '..', 'src', 'index.ts'), 'utf8');
    expect(source).not.toMatch(/export \*/);
  });
});
