// Run by unprivileged.test.ts as another (non-root) uid: the probe, then one networked launch of a
// shell script, printed as JSON. Ferry's own code, started as an ordinary user would start it.
import { spawnSync } from 'node:child_process';
import { createBubblewrapLauncher } from '../../src/bubblewrap-launcher.js';

const [workspacesRoot, script] = process.argv.slice(2) as [string, string];
const launcher = createBubblewrapLauncher({ workspacesRoot, mode: 'required' });
const probe = await launcher.probe();
const server = {
  name: 'sh',
  command: '/bin/sh',
  args: ['-c', script],
  env: {},
  sandbox: 'required' as const,
};
const run = async (network: boolean) => {
  try {
    const spec = await launcher({ ...server, network }, 'alice');
    const ran = spawnSync(spec.command, spec.args, {
      env: spec.env,
      cwd: spec.cwd,
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
  } catch (error) {
    return { error: { code: (error as { code?: string }).code, message: (error as Error).message } };
  }
};
console.log(JSON.stringify({ probe, offline: await run(false), online: await run(true) }));
