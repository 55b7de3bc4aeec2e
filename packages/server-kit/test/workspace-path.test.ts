import { mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  normalizeWorkspaceName,
  resolveWorkspacePath,
  workspaceDir,
  workspaceRoot,
} from '../src/workspace-path.js';
import { type TempDir, tempDir } from './temp-dir.js';

describe('workspaceRoot and workspaceDir', () => {
  it('default to /tmp/{username} and follow FERRY_WORKSPACE_ROOT', () => {
    expect(workspaceRoot({})).toBe('/tmp');
    expect(workspaceDir('alice', {})).toBe('/tmp/alice');
    expect(workspaceDir('bob@example.com', { FERRY_WORKSPACE_ROOT: '/srv/ws/' })).toBe(
      '/srv/ws/bob@example.com',
    );
  });

  it('refuse usernames that are not one safe path component', () => {
    for (const name of ['', '..', '../alice', 'a/b', '.hidden', 'a b']) {
      expect(() => workspaceDir(name, {})).toThrow(FerryError);
    }
  });
});

describe('normalizeWorkspaceName', () => {
  it('normalizes names that stay inside', () => {
    expect(normalizeWorkspaceName('report.html', '/w')).toBe('report.html');
    expect(normalizeWorkspaceName('./out//a/../b.txt', '/w')).toBe('out/b.txt');
    expect(normalizeWorkspaceName('dir/', '/w')).toBe('dir');
  });

  it.each([
    ['', 'empty'],
    ['a\0b', 'NUL'],
    ['a\\b', 'backslash'],
    ['/etc/passwd', 'absolute'],
    ['..', 'leaves'],
    ['../x', 'leaves'],
    ['a/../../x', 'leaves'],
    ['.', 'leaves'],
    ['input_files/data.csv', 'input_files'],
  ])('refuses %j (%s) with E_INVALID_PATH', (name, why) => {
    try {
      normalizeWorkspaceName(name, '/w/alice');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FerryError);
      expect((error as FerryError).code).toBe('E_INVALID_PATH');
      expect((error as FerryError).message).toContain(why);
      expect((error as FerryError).details).toEqual({ attempted_path: name, allowed_prefix: '/w/alice/' });
    }
  });
});

describe('resolveWorkspacePath', () => {
  let root: TempDir;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    root = await tempDir();
    env = { FERRY_WORKSPACE_ROOT: root.path };
  });
  afterEach(async () => {
    await root.cleanup();
  });

  it('creates the workspace (mode 0700) and the parent directories', async () => {
    const path = await resolveWorkspacePath('alice', 'a/b/c.txt', env);
    expect(path).toBe(join(root.path, 'alice', 'a', 'b', 'c.txt'));
    expect((await stat(join(root.path, 'alice'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(root.path, 'alice', 'a', 'b'))).isDirectory()).toBe(true);
  });

  it('refuses a directory symlink that leads outside, creating nothing there', async () => {
    const outside = join(root.path, 'outside');
    await mkdir(outside);
    await mkdir(join(root.path, 'alice'));
    await symlink(outside, join(root.path, 'alice', 'out'));
    await expect(resolveWorkspacePath('alice', 'out/deep/x.txt', env)).rejects.toMatchObject({
      code: 'E_INVALID_PATH',
      message: expect.stringContaining('out is a symlink'),
    });
    await expect(stat(join(outside, 'deep'))).rejects.toThrow();
  });

  it('refuses a final name that is a symlink, even to a file inside', async () => {
    await mkdir(join(root.path, 'alice'));
    await writeFile(join(root.path, 'alice', 'real.txt'), 'x');
    await symlink(join(root.path, 'alice', 'real.txt'), join(root.path, 'alice', 'link.txt'));
    await expect(resolveWorkspacePath('alice', 'link.txt', env)).rejects.toMatchObject({
      code: 'E_INVALID_PATH',
    });
  });

  it('refuses to use a file as a directory', async () => {
    await mkdir(join(root.path, 'alice'));
    await writeFile(join(root.path, 'alice', 'file'), 'x');
    await expect(resolveWorkspacePath('alice', 'file/x.txt', env)).rejects.toMatchObject({
      code: 'E_INVALID_PATH',
      message: expect.stringContaining('file is not a directory'),
    });
  });
});
