// sandbox.binds: extra host paths a server sees at their own place, read-only unless marked
// writable; per server under bindsByServer; never a directory of the host's state as a whole.
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher } from '../src/bubblewrap-launcher.js';
import { hostTempDir, requireSandbox, run, shServer } from './support/run-launch.js';

let dir: string;
let models: string;
let cache: string;
beforeAll(async () => {
  const probe = await requireSandbox();
  dir = await hostTempDir('ferry-binds-');
  models = join(dir, 'models');
  cache = join(dir, 'cache');
  await mkdir(models);
  await writeFile(join(models, 'weights.bin'), 'weights');
  await mkdir(cache);
  // A writable bind is writable as the host's modes allow the sandbox user.
  if (probe.runsAs) await chown(cache, probe.runsAs.uid, probe.runsAs.gid);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sh = (script: string, name = 'sh') => shServer(script, { name });

describe('sandbox.binds', () => {
  it('a read-only bind and a writable one, at their own paths; without them neither exists', async () => {
    const script = `cat ${models}/weights.bin; echo; (echo x > ${models}/new) 2>/dev/null || echo models-ro; echo cached > ${cache}/entry && echo cache-rw`;
    const launcher = createBubblewrapLauncher({
      workspacesRoot: join(dir, 'workspaces'),
      binds: [models],
      bindsByServer: { cacher: [{ path: cache, writable: true }] },
    });
    const ran = await run(await launcher(sh(script, 'cacher'), 'alice'));
    expect(ran.stdout).toBe('weights\nmodels-ro\ncache-rw\n');
    expect(await readFile(join(cache, 'entry'), 'utf8')).toBe('cached\n');
    // Another server gets the shared bind, not cacher's own.
    const other = await run(
      await launcher(sh(`cat ${models}/weights.bin; ls ${cache} 2>/dev/null || echo no-cache`), 'alice'),
    );
    expect(other.stdout).toBe('weightsno-cache\n');
    const none = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces') });
    expect((await run(await none(sh(`ls ${dir} 2>/dev/null || echo absent`), 'alice'))).stdout).toBe(
      'absent\n',
    );
  });

  it('refuses a relative path or a whole host directory such as /, /root or /var at creation', () => {
    const root = join(dir, 'workspaces');
    expect(() => createBubblewrapLauncher({ workspacesRoot: root, binds: ['relative/dir'] })).toThrow(
      /not an absolute path/,
    );
    for (const path of ['/', '/root', '/var', '/home', '/etc']) {
      expect(() => createBubblewrapLauncher({ workspacesRoot: root, binds: [path] }), path).toThrow(
        /cannot be bound whole/,
      );
    }
  });
});
