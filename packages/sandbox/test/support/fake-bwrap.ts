// A `bwrap` that fails the way a kernel without unprivileged user namespaces (or a container
// without CAP_SYS_ADMIN) makes the real one fail, to test what the launcher does then.
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BWRAP_FAILURE = 'bwrap: setting up uid map: Permission denied';

export async function fakeBwrap(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-fake-bwrap-'));
  const path = join(dir, 'bwrap');
  await writeFile(path, `#!/bin/sh\necho '${BWRAP_FAILURE}' >&2\nexit 1\n`);
  await chmod(path, 0o755);
  return path;
}
