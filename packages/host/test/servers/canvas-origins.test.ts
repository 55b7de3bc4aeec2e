// `canvasOrigins` in a server's config: which origins its v2 canvas envelopes may be framed from.
import { FerryError } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { canvasOriginsOf, parseOrigin } from '../../src/servers/canvas-origins.js';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import { createServerRegistry } from '../../src/servers/server-registry.js';

function rejection(servers: Record<string, ServerConfigInput>): FerryError {
  try {
    createServerRegistry(servers);
  } catch (error) {
    expect(error).toBeInstanceOf(FerryError);
    return error as FerryError;
  }
  throw new Error('expected the config to be rejected');
}

describe('canvasOrigins defaults', () => {
  it("allows a remote server's own origin, and nothing for a local server", () => {
    const registry = createServerRegistry({
      api: { transport: 'http', url: 'https://Tools.Example.com:443/mcp?x=1' },
      legacy: { transport: 'sse', url: 'http://127.0.0.1:3001/sse' },
      local: { transport: 'stdio', command: 'node' },
    });
    expect(canvasOriginsOf(registry.get('api'))).toEqual(['https://tools.example.com']);
    expect(canvasOriginsOf(registry.get('legacy'))).toEqual(['http://127.0.0.1:3001']);
    expect(canvasOriginsOf(registry.get('local'))).toEqual([]);
    expect(registry.get('local')).not.toHaveProperty('canvasOrigins');
  });

  it('takes the configured list instead, normalized as browsers compare origins, on any transport', () => {
    const registry = createServerRegistry({
      api: {
        transport: 'http',
        url: 'https://tools.example.com/mcp',
        canvasOrigins: ['https://Dash.Example.com:443/', 'http://127.0.0.1:8080'],
      },
      closed: { transport: 'http', url: 'https://tools.example.com/mcp', canvasOrigins: [] },
      local: { transport: 'stdio', command: 'node', canvasOrigins: ['https://dash.example.com'] },
    });
    expect(canvasOriginsOf(registry.get('api'))).toEqual([
      'https://dash.example.com',
      'http://127.0.0.1:8080',
    ]);
    expect(canvasOriginsOf(registry.get('closed'))).toEqual([]);
    expect(canvasOriginsOf(registry.get('local'))).toEqual(['https://dash.example.com']);
    expect(Object.isFrozen(registry.get('api').canvasOrigins)).toBe(true);
  });
});

describe('canvasOrigins validation', () => {
  it('rejects every entry that is not an http(s) origin, naming server, key and entry', () => {
    const error = rejection({
      dash: {
        transport: 'http',
        url: 'https://tools.example.com/mcp',
        canvasOrigins: [
          'https://dash.example.com/view',
          'https://dash.example.com?x=1',
          'https://dash.example.com#top',
          'ftp://dash.example.com',
          'https://user:pw@dash.example.com',
          'dash.example.com',
          '*',
          'https://dash.example.com',
        ],
      },
    });
    expect(error.message.split('\n').slice(1)).toEqual([
      '  servers.dash.canvasOrigins.0: "https://dash.example.com/view" has a path, query or fragment: an origin is scheme://host[:port] only ("https://dash.example.com")',
      '  servers.dash.canvasOrigins.1: "https://dash.example.com?x=1" has a path, query or fragment: an origin is scheme://host[:port] only ("https://dash.example.com")',
      '  servers.dash.canvasOrigins.2: "https://dash.example.com#top" has a path, query or fragment: an origin is scheme://host[:port] only ("https://dash.example.com")',
      '  servers.dash.canvasOrigins.3: "ftp://dash.example.com" is not an http(s) origin',
      '  servers.dash.canvasOrigins.4: "https://user:pw@dash.example.com" has a user name or password: an origin is scheme://host[:port]',
      '  servers.dash.canvasOrigins.5: "dash.example.com" is not an origin: write scheme://host[:port], e.g. https://dash.example.com',
      '  servers.dash.canvasOrigins.6: "*" is not an origin: write scheme://host[:port], e.g. https://dash.example.com',
    ]);
  });

  it('rejects a list that is not a list of strings, and more than 50 origins', () => {
    const error = rejection({
      one: { transport: 'stdio', command: 'node', canvasOrigins: 'https://dash.example.com' as never },
      two: { transport: 'stdio', command: 'node', canvasOrigins: [42 as never] },
      many: {
        transport: 'http',
        url: 'https://tools.example.com/mcp',
        canvasOrigins: Array.from({ length: 51 }, (_, i) => `https://d${i}.example.com`),
      },
    });
    const problems = error.details.problems as { server: string; field: string; message: string }[];
    expect(problems.map((p) => `${p.server} ${p.field}`)).toEqual([
      'one canvasOrigins',
      'two canvasOrigins.0',
      'many canvasOrigins',
    ]);
    expect(problems[2]?.message).toBe('canvasOrigins: at most 50 origins');
  });
});

describe('parseOrigin', () => {
  it('keeps ports that are not the default and drops a trailing slash', () => {
    expect(parseOrigin('http://127.0.0.1:80')).toEqual({ ok: true, origin: 'http://127.0.0.1' });
    expect(parseOrigin('https://[::1]:8443/')).toEqual({ ok: true, origin: 'https://[::1]:8443' });
    expect(parseOrigin('https://dash.example.com?')).toMatchObject({ ok: false });
  });
});
