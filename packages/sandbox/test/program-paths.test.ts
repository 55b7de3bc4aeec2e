// What "its own program" binds, on real directories: the package tree of the command, of its
// links and #! interpreters, of a venv's home, of path arguments; never a directory that holds
// other users' or the host's state; and a one-line reason naming the path when something is
// missing or unreadable.
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProgramPaths, ProgramNotFound, unreadableBy } from '../src/program-paths.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp('/var/tmp/ferry-program-');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const PATH = '/usr/local/bin:/usr/bin:/bin';

async function executable(path: string, content: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  await chmod(path, 0o755);
}

describe('findProgramPaths', () => {
  it('a node project: the highest package tree above the script (hoisted node_modules), not the system node', async () => {
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'node_modules'), { recursive: true });
    await writeFile(join(repo, 'package.json'), '{}');
    await mkdir(join(repo, 'examples/servers/src'), { recursive: true });
    await writeFile(join(repo, 'examples/servers/package.json'), '{}');
    await writeFile(join(repo, 'examples/servers/src/server.ts'), '');
    const found = await findProgramPaths({
      command: 'node',
      args: ['--import', 'tsx', 'src/server.ts'],
      cwd: join(repo, 'examples/servers'),
      path: PATH,
    });
    expect(found.executable).toMatch(/\/node$/);
    expect(found.roots).toEqual([repo]);
  });

  it('a virtualenv whose python links to an interpreter elsewhere: the venv, the interpreter’s prefix, pyvenv.cfg’s home, the script’s directory', async () => {
    const prefix = join(dir, 'pyenv/versions/3.11.7');
    await executable(join(prefix, 'bin/python3.11'), '\x7fELF');
    await mkdir(join(prefix, 'lib/python3.11'), { recursive: true });
    const venv = join(dir, 'py-venv');
    await mkdir(join(venv, 'bin'), { recursive: true });
    await writeFile(join(venv, 'pyvenv.cfg'), `home = ${join(prefix, 'bin')}\n`);
    await symlink(join(prefix, 'bin/python3.11'), join(venv, 'bin/python3'));
    await symlink('python3', join(venv, 'bin/python'));
    const scripts = join(dir, 'scripts');
    await mkdir(scripts);
    await writeFile(join(scripts, 'server.py'), 'print()');
    const found = await findProgramPaths({
      command: join(venv, 'bin/python'),
      args: [join(scripts, 'server.py')],
      path: PATH,
    });
    expect(found.executable).toBe(join(venv, 'bin/python'));
    expect(new Set(found.roots)).toEqual(new Set([venv, prefix, scripts]));
    expect(found.files).toEqual(
      expect.arrayContaining([join(prefix, 'bin/python3.11'), join(scripts, 'server.py')]),
    );
  });

  it('a #! script run through /usr/bin/env: the interpreter is looked up in PATH (here a system one: nothing extra)', async () => {
    const tool = join(dir, 'tool/bin/tool');
    await executable(tool, '#!/usr/bin/env sh\necho hi\n');
    const found = await findProgramPaths({ command: tool, args: [], path: PATH });
    expect(found.roots).toEqual([join(dir, 'tool')]);
  });

  it('never binds / or a directory of the host’s state for an argument (server-filesystem rooted at /)', async () => {
    const found = await findProgramPaths({
      command: '/bin/sh',
      args: ['/', '/root', '/tmp', '/var', '-c', 'x'],
      path: PATH,
    });
    expect(found.roots).toEqual([]);
  });

  it('says which path is missing, in one line', async () => {
    const venv = join(dir, 'broken-venv');
    await mkdir(join(venv, 'bin'), { recursive: true });
    await symlink('/nonexistent/python3.11', join(venv, 'bin/python'));
    const missing = await findProgramPaths({ command: join(venv, 'bin/python'), args: [], path: PATH }).catch(
      (e) => e,
    );
    expect(missing).toBeInstanceOf(ProgramNotFound);
    expect(missing.message).toBe(
      `command ${join(venv, 'bin/python')} points to /nonexistent/python3.11, which does not exist`,
    );
    const notInPath = await findProgramPaths({ command: 'no-such-tool', args: [], path: PATH }).catch(
      (e) => e,
    );
    expect(notInPath.message).toBe(`command "no-such-tool" was not found in PATH (${PATH})`);
    const script = join(dir, 'needs/bin/run');
    await executable(script, '#!/usr/bin/env no-such-interpreter\n');
    const interpreter = await findProgramPaths({ command: script, args: [], path: PATH }).catch((e) => e);
    expect(interpreter.message).toBe(
      `${script} runs "no-such-interpreter" (#!), which is not in PATH (${PATH})`,
    );
  });

  it('a script argument that does not exist is named; other arguments naming nothing are left alone', async () => {
    const project = join(dir, 'scripted');
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'src/server.ts'), '');
    const query = { command: 'node', cwd: project, path: PATH };
    const missing = await findProgramPaths({ ...query, args: ['--import', 'tsx', 'src/nope.ts'] }).catch(
      (e) => e,
    );
    expect(missing).toBeInstanceOf(ProgramNotFound);
    expect(missing.message).toBe(`script ${join(project, 'src/nope.ts')} does not exist`);
    for (const script of ['server.py', '/srv/app/main.mjs', './run.sh']) {
      await expect(findProgramPaths({ ...query, args: [script] }), script).rejects.toThrow(
        /^script .* does not exist$/,
      );
    }
    // A module name, code for -e, a URL, a file the server will write, a --flag=value: no script.
    const found = await findProgramPaths({
      ...query,
      args: [
        '--import',
        'tsx',
        '-e',
        "require('./x.js')",
        'https://example.com/s.ts',
        'out.csv',
        '--log=x.js',
        'src/server.ts',
      ],
    });
    expect(found.roots).toEqual([project]);
  });

  it('unsandboxed, a cwd the sandbox would never show is fine', async () => {
    const query = { command: 'node', args: [], cwd: '/var', path: PATH };
    await expect(findProgramPaths(query)).rejects.toThrow(/cwd \/var is never shown inside the sandbox/);
    expect((await findProgramPaths({ ...query, sandboxed: false })).executable).toMatch(/\/node$/);
  });
});

describe('unreadableBy', () => {
  it('names the first directory the sandbox user cannot enter, or the file it cannot read', async () => {
    const root = join(dir, 'private');
    await mkdir(join(root, 'inner'), { recursive: true });
    await writeFile(join(root, 'inner/server.py'), '');
    await chmod(root, 0o700);
    const who = { uid: 999_999, gid: 999_999 };
    expect(await unreadableBy([join(root, 'inner/server.py')], [root], who)).toEqual({
      path: root,
      why: 'the directory cannot be entered (mode 0700, owner uid 0)',
    });
    await chmod(root, 0o755);
    await chmod(join(root, 'inner/server.py'), 0o600);
    expect((await unreadableBy([join(root, 'inner/server.py')], [root], who))?.path).toBe(
      join(root, 'inner/server.py'),
    );
    await chmod(join(root, 'inner/server.py'), 0o644);
    expect(await unreadableBy([join(root, 'inner/server.py')], [root], who)).toBeUndefined();
  });
});
