import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { createSharedState } from '../../src/shared/shared-state.js';
import { REPO_ROOT } from '../support/start-app.js';

const SRC = join(REPO_ROOT, 'apps/ferry/src');

/**
 * The modules `entry` loads when it is imported, following relative imports, and the packages
 * they name. `import type` and dynamic `import()` load nothing at that moment, so they are skipped.
 */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  const statement = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(statement)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  }
  return { files, packages };
}

describe('createSharedState', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => redis.drop());

  it('the embedded default shares nothing: undefined, no Redis', async () => {
    await expect(createSharedState(defaultAppConfig())).resolves.toBeUndefined();
  });

  it('the embedded start never loads ioredis: only a dynamic import reaches the Redis modules', () => {
    for (const entry of [
      'main.ts',
      'server.ts',
      'app.ts',
      'shared/shared-state.ts',
      'shared/instance-bus.ts',
    ]) {
      const { files, packages } = staticGraph(join(SRC, entry));
      expect(packages, entry).not.toContain('ioredis');
      expect(
        [...files].filter((file) => /shared\/redis-/.test(file)),
        entry,
      ).toEqual([]);
    }
    // The walk does see ioredis where it is loaded, and shared-state.ts reaches it dynamically.
    expect(staticGraph(join(SRC, 'shared/redis-shared-state.ts')).packages).toContain('ioredis');
    expect(readFileSync(join(SRC, 'shared/shared-state.ts'), 'utf8')).toContain(
      "await import('./redis-shared-state.js')",
    );
  });

  it('with a redis section: a live bus under the prefix, a readiness check, and close leaves', async () => {
    const config = defaultAppConfig({
      redis: { url: redis.url, prefix: redis.prefix, heartbeatMs: 100 },
    });
    const shared = await createSharedState(config, { publicUrl: 'http://10.0.0.5:8787' });
    if (!shared) throw new Error('expected the Redis shared state');
    const key = `${redis.prefix}instance:${shared.instanceId}`;
    try {
      expect(shared.bus.id).toBe(shared.instanceId);
      expect(shared.label).toBe(`Redis (redis://${new URL(redis.url).host})`);
      expect(JSON.parse((await redis.client.get(key)) ?? '{}')).toMatchObject({
        url: 'http://10.0.0.5:8787',
      });
      expect(await shared.bus.isAlive(shared.instanceId)).toBe(true);
      expect(shared.readiness.name).toBe('redis');
      await expect(shared.readiness.check(new AbortController().signal)).resolves.toBeUndefined();
    } finally {
      await shared.close();
    }
    expect(await redis.client.exists(key)).toBe(0);
  });

  it('an unreachable Redis fails the start, naming it without its password', async () => {
    const config = defaultAppConfig({
      redis: { url: 'redis://ferry:hunter2@127.0.0.1:1', prefix: redis.prefix },
    });
    const error = await createSharedState(config).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_INTERNAL', details: { reason: 'redis_unreachable' } });
    expect((error as Error).message).toMatch(/^Cannot connect to Redis at redis:\/\/127\.0\.0\.1:1:/);
    expect((error as Error).message).not.toContain('hunter2');
  });
});
