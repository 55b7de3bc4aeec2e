// The seven provider tools over a real workspace in a temp dir and a real FileStore (My Files):
// the spec's test list (encodings, base64, patterns, recursion, stats, missing paths, permission
// denied, size limit, invalid parameters), traversal and link attacks, the policy, the caps and
// the streaming bounds.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  chmod,
  link,
  mkdir,
  readdir,
  readlink,
  realpath,
  rename,
  rm,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createOperationContext,
  openResolvedFile,
  resolveWorkspacePath,
} from '../../src/file-provider/provider-op-context.js';
import { ProviderFailure } from '../../src/file-provider/provider-op-errors.js';
import { type ProviderRun, runProviderTool } from '../../src/file-provider/provider-operations.js';
import { parseProviderPath } from '../../src/file-provider/provider-paths.js';
import { parseFileProviderSettings } from '../../src/file-provider/provider-settings.js';
import { providerToolDefinitions } from '../../src/file-provider/provider-tool-definitions.js';
import type {
  FileProviderSettings,
  ProviderError,
  ProviderFileStats,
  ProviderScope,
} from '../../src/file-provider/provider-types.js';
import { openTestStorage, type TestStorage } from '../pipeline/support/test-storage.js';

/** The config's defaults, turned on. */
const SETTINGS: FileProviderSettings = parseFileProviderSettings({ enabled: true });
const W = '/tmp/alice';
const SECRET = 'TOP SECRET OUTSIDE';

let storage: TestStorage;
/** Real host directory tools see as /tmp/alice. */
let ws: string;
/** A directory beside the workspace, with the same name prefix. */
let outside: string;
let scope: ProviderScope;
const binary = Buffer.from([0, 1, 2, 3, ...Array.from({ length: 1000 }, (_, i) => (i * 7) % 256)]);

beforeAll(async () => {
  storage = await openTestStorage({}, 'alice');
  const base = await realpath(storage.dir);
  ws = join(base, 'ws', 'alice');
  outside = join(base, 'ws', 'alice2');
  await mkdir(join(ws, 'subdir', 'deeper'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.txt'), SECRET);
  await writeFile(join(ws, 'test.txt'), 'Hello, World!');
  await writeFile(join(ws, 'binary.bin'), binary);
  await writeFile(join(ws, '.env'), 'KEY=1');
  await writeFile(join(ws, 'subdir', 'nested.py'), "print('test')");
  await writeFile(join(ws, 'subdir', 'notes.md'), '# notes');
  await writeFile(join(ws, 'subdir', 'deeper', 'deep.py'), 'x = 1');
  await writeFile(join(ws, 'utf8.txt'), 'héllo wörld ✓');
  await writeFile(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  await writeFile(join(ws, 'invalid-utf8.txt'), Buffer.from([0x61, 0xff, 0xfe, 0x62]));
  await writeFile(
    join(ws, 'utf16.txt'),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]),
  );
  await writeFile(
    join(ws, 'utf16be.txt'),
    Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('héllo', 'utf16le').swap16()]),
  );
  await writeFile(join(ws, 'utf16le.txt'), Buffer.from('plain le', 'utf16le'));
  await writeFile(join(ws, 'eleven.bin'), Buffer.alloc(11, 0x61));
  await symlink('subdir/nested.py', join(ws, 'link-inside'));
  await symlink('subdir', join(ws, 'link-dir'));
  await symlink(join(outside, 'secret.txt'), join(ws, 'link-out'));
  await symlink('../alice2/secret.txt', join(ws, 'link-out-relative'));
  await symlink(outside, join(ws, 'link-out-dir'));
  await symlink(join(outside, 'missing.txt'), join(ws, 'dangling-out'));
  await symlink('nothing-here', join(ws, 'dangling-in'));
  await symlink('loop-b', join(ws, 'loop-a'));
  await symlink('loop-a', join(ws, 'loop-b'));
  await symlink('../link-out-dir', join(ws, 'subdir', 'chain-out'));
  // A real my_files in the workspace is shadowed by the virtual one.
  await mkdir(join(ws, 'my_files'));
  await writeFile(join(ws, 'my_files', 'shadowed.txt'), 'shadowed');

  await storage.put('report.txt', 'old report');
  await storage.put('report.txt', 'new report');
  await storage.put('out.json', '{"a":1}', { source: 'generated' });
  await storage.put('later.bin', Buffer.from([9, 8, 7]), { source: 'deferred' });
  await storage.put('shared.txt', 'uploaded first');
  await storage.put('shared.txt', 'then generated', { source: 'generated' });

  scope = {
    username: 'alice',
    owner: storage.owner,
    workspaceHostDir: ws,
    files: storage.files,
    settings: SETTINGS,
  };
}, 60_000);

afterAll(async () => {
  await storage?.close();
});

function call(
  tool: string,
  args: unknown,
  settings: Partial<FileProviderSettings> = {},
  signal?: AbortSignal,
) {
  return runProviderTool({ ...scope, settings: { ...SETTINGS, ...settings } }, tool, args, signal);
}

async function value<T = unknown>(run: Promise<ProviderRun>): Promise<T> {
  const { result } = await run;
  if (!result.ok) throw new Error(`expected a value, got ${JSON.stringify(result.error)}`);
  return result.value as T;
}

async function failure(run: Promise<ProviderRun>): Promise<ProviderError> {
  const { result } = await run;
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value).slice(0, 200)}`);
  return result.error;
}

/** No answer may carry the workspace's host path or anything from outside it. */
function expectNoLeak(answer: unknown) {
  const text = JSON.stringify(answer);
  expect(text).not.toContain(storage.dir);
  expect(text).not.toContain('alice2');
  expect(text).not.toContain(SECRET);
}

describe('read_file', () => {
  it('reads text, through a link that stays inside, and reports path and bytes', async () => {
    const run = await call('read_file', { file_path: `${W}/test.txt` });
    expect(run).toEqual({ result: { ok: true, value: 'Hello, World!' }, path: `${W}/test.txt`, bytes: 13 });
    expect(await value(call('read_file', { file_path: `${W}/link-inside` }))).toBe("print('test')");
    expect(await value(call('read_file', { file_path: `${W}/link-dir/nested.py` }))).toBe("print('test')");
    expect(await value(call('read_file', { file_path: `${W}//subdir/./deeper/deep.py` }))).toBe('x = 1');
  });

  it.each([
    ['utf-8', 'utf8.txt', 'héllo wörld ✓'],
    ['UTF8', 'utf8.txt', 'héllo wörld ✓'],
    ['latin-1', 'latin1.txt', 'café'],
    ['iso-8859-1', 'latin1.txt', 'café'],
    ['latin1', 'latin1.txt', 'café'],
    ['ascii', 'test.txt', 'Hello, World!'],
    ['utf-16', 'utf16.txt', 'héllo'],
    ['utf-16', 'utf16be.txt', 'héllo'],
    ['utf-16le', 'utf16le.txt', 'plain le'],
    ['cp1252', 'latin1.txt', 'café'],
  ])('decodes %s (%s)', async (encoding, name, text) => {
    expect(await value(call('read_file', { file_path: `${W}/${name}`, encoding }))).toBe(text);
  });

  it('refuses bytes that are not valid in the encoding, and an unknown encoding', async () => {
    const invalid = await failure(call('read_file', { file_path: `${W}/invalid-utf8.txt` }));
    expect(invalid.error_type).toBe('FileProviderError');
    expect(invalid.error).toMatch(/^Encoding error: /);
    const ascii = await failure(call('read_file', { file_path: `${W}/latin1.txt`, encoding: 'ascii' }));
    expect(ascii.error).toMatch(/^Encoding error: .*not ascii/);
    const unknown = await failure(call('read_file', { file_path: `${W}/test.txt`, encoding: 'klingon-8' }));
    expect(unknown).toEqual({ error: 'Unknown encoding: "klingon-8"', error_type: 'FileProviderError' });
  });

  it('checks the size before reading: max_size (also as a string) and the settings ceiling', async () => {
    expect(await value(call('read_file', { file_path: `${W}/eleven.bin`, max_size: 11 }))).toBe(
      'a'.repeat(11),
    );
    const run = await call('read_file', { file_path: `${W}/eleven.bin`, max_size: '10' });
    expect(run.result).toEqual({
      ok: false,
      error: { error: 'File size 11 exceeds limit 10', error_type: 'FileSizeLimitExceededError' },
    });
    expect(run.bytes).toBeUndefined();
    const ceiling = await failure(
      call('read_file', { file_path: `${W}/eleven.bin`, max_size: 1000 }, { maxFileSize: 5 }),
    );
    expect(ceiling).toEqual({
      error: 'File size 11 exceeds limit 5',
      error_type: 'FileSizeLimitExceededError',
    });
    // 0 is "not given", as the spec's `if max_size`.
    expect(await value(call('read_file', { file_path: `${W}/eleven.bin`, max_size: 0 }))).toBe(
      'a'.repeat(11),
    );
  });

  it("answers FileNotFoundError with the caller's path, and FileProviderError for a directory", async () => {
    expect(await failure(call('read_file', { file_path: `${W}/nope.txt` }))).toEqual({
      error: `File not found: ${W}/nope.txt`,
      error_type: 'FileNotFoundError',
    });
    expect(await failure(call('read_file', { file_path: `${W}/dangling-in` }))).toMatchObject({
      error_type: 'FileNotFoundError',
    });
    expect(await failure(call('read_file', { file_path: `${W}/subdir` }))).toEqual({
      error: `Path is not a file: ${W}/subdir`,
      error_type: 'FileProviderError',
    });
    expect(await failure(call('read_file', { file_path: `${W}/loop-a` }))).toMatchObject({
      error_type: 'FileProviderError',
      error: expect.stringMatching(/symbolic links/),
    });
  });
});

describe('read_file_binary', () => {
  it('returns the bytes as base64, for every remainder of the 3-byte grouping', async () => {
    const run = await call('read_file_binary', { file_path: `${W}/binary.bin` });
    expect(run.result).toEqual({ ok: true, value: binary.toString('base64') });
    expect(run.bytes).toBe(binary.length);
    for (const size of [0, 1, 2, 3, 4, 65_537, 200_000]) {
      const data = Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + 7) % 256));
      await writeFile(join(ws, 'sized.bin'), data);
      const encoded = await value<string>(call('read_file_binary', { file_path: `${W}/sized.bin` }));
      expect(Buffer.from(encoded, 'base64').equals(data)).toBe(true);
      expect(encoded).toBe(data.toString('base64'));
    }
  });

  it('applies the size limit and reports missing files', async () => {
    expect(
      (await failure(call('read_file_binary', { file_path: `${W}/binary.bin`, max_size: 4 }))).error_type,
    ).toBe('FileSizeLimitExceededError');
    expect((await failure(call('read_file_binary', { file_path: `${W}/missing.bin` }))).error_type).toBe(
      'FileNotFoundError',
    );
  });
});

describe('list_directory', () => {
  it('lists the immediate entries (files, directories, links) as absolute tool paths', async () => {
    const run = await call('list_directory', { directory_path: `${W}/subdir` });
    expect(run.count).toBe(4);
    expect(((await value<string[]>(Promise.resolve(run))) as string[]).sort()).toEqual(
      [`${W}/subdir/chain-out`, `${W}/subdir/deeper`, `${W}/subdir/nested.py`, `${W}/subdir/notes.md`].sort(),
    );
  });

  it('filters by an fnmatch-like pattern on the name (dot files included)', async () => {
    expect(await value(call('list_directory', { directory_path: `${W}/subdir`, pattern: '*.py' }))).toEqual([
      `${W}/subdir/nested.py`,
    ]);
    const dots = await value<string[]>(call('list_directory', { directory_path: W, pattern: '.*' }));
    expect(dots).toEqual([`${W}/.env`]);
    const bracket = await value<string[]>(
      call('list_directory', { directory_path: `${W}/subdir`, pattern: '[!n]*' }),
    );
    expect(bracket.sort()).toEqual([`${W}/subdir/chain-out`, `${W}/subdir/deeper`]);
  });

  it('recurses without descending into linked directories', async () => {
    const all = await value<string[]>(call('list_directory', { directory_path: W, recursive: 'true' }));
    expect(all).toContain(`${W}/subdir/deeper/deep.py`);
    expect(all).toContain(`${W}/link-dir`);
    expect(all).toContain(`${W}/link-out-dir`);
    expect(all.some((path) => path.startsWith(`${W}/link-dir/`))).toBe(false);
    expect(all.some((path) => path.startsWith(`${W}/link-out-dir/`))).toBe(false);
    // The virtual My Files tree, not the real my_files directory.
    expect(all).toContain(`${W}/my_files`);
    expect(all).toContain(`${W}/my_files/uploaded/report.txt`);
    expect(all).not.toContain(`${W}/my_files/shadowed.txt`);
    expectNoLeak(all);
    const py = await value<string[]>(
      call('list_directory', { directory_path: W, recursive: true, pattern: '*.py' }),
    );
    expect(py.sort()).toEqual([`${W}/subdir/deeper/deep.py`, `${W}/subdir/nested.py`]);
  });

  it("lists a directory named through a link inside, with the caller's path", async () => {
    const entries = await value<string[]>(call('list_directory', { directory_path: `${W}/link-dir` }));
    expect(entries).toContain(`${W}/link-dir/nested.py`);
  });

  it('refuses a file, a missing directory and a link out of the workspace', async () => {
    expect(await failure(call('list_directory', { directory_path: `${W}/test.txt` }))).toEqual({
      error: `Path is not a directory: ${W}/test.txt`,
      error_type: 'FileProviderError',
    });
    expect(await failure(call('list_directory', { directory_path: `${W}/none` }))).toEqual({
      error: `Directory not found: ${W}/none`,
      error_type: 'FileNotFoundError',
    });
    for (const path of [`${W}/link-out-dir`, `${W}/subdir/chain-out`]) {
      const error = await failure(call('list_directory', { directory_path: path }));
      expect(error.error_type).toBe('PermissionError');
      expectNoLeak(error);
    }
  });
});

describe('find_files', () => {
  it('finds files (not directories) matching any pattern, recursively by default', async () => {
    const found = await value<string[]>(
      call('find_files', { directory_path: W, patterns: ['*.py', '*.md'] }),
    );
    expect(found.sort()).toEqual([
      `${W}/subdir/deeper/deep.py`,
      `${W}/subdir/nested.py`,
      `${W}/subdir/notes.md`,
    ]);
    const flat = await value<string[]>(
      call('find_files', { directory_path: `${W}/subdir`, patterns: ['*'], recursive: 'false' }),
    );
    expect(flat.sort()).toEqual([`${W}/subdir/nested.py`, `${W}/subdir/notes.md`]);
    expect(await value(call('find_files', { directory_path: W, patterns: [] }))).toEqual([]);
  });

  it('counts a link to a file inside as a file, never a link leading out', async () => {
    const links = await value<string[]>(
      call('find_files', { directory_path: W, patterns: ['link-*'], recursive: false }),
    );
    expect(links).toEqual([`${W}/link-inside`]);
  });

  it('honours max_files', async () => {
    const two = await call('find_files', { directory_path: W, patterns: ['*'], max_files: 2 });
    expect(two.count).toBe(2);
  });
});

describe('file_exists', () => {
  it.each([
    [`${W}/test.txt`, true],
    [`${W}/subdir`, true],
    [W, true],
    [`${W}/link-inside`, true],
    [`${W}/nope`, false],
    [`${W}/dangling-in`, false],
    [`${W}/link-out`, false],
    [`${W}/dangling-out`, false],
    [`${W}/my_files`, true],
    [`${W}/my_files/uploaded/report.txt`, true],
    [`${W}/my_files/uploaded/shared.txt`, false],
    [`${W}/my_files/generated/shared.txt`, true],
    [`${W}/my_files/shadowed.txt`, false],
    ['/etc/passwd', false],
    [`${W}/../alice2/secret.txt`, false],
    ['relative.txt', false],
  ])('%s → %s', async (path, exists) => {
    expect(await call('file_exists', { path })).toEqual({ result: { ok: true, value: exists }, path });
  });

  it('never answers an error, even for invalid parameters', async () => {
    expect((await call('file_exists', {})).result).toEqual({ ok: true, value: false });
    expect((await call('file_exists', { path: 12 })).result).toEqual({ ok: true, value: false });
  });
});

describe('get_file_stats', () => {
  it('describes a file and a directory', async () => {
    const file = await value<ProviderFileStats>(call('get_file_stats', { path: `${W}/test.txt` }));
    expect(file).toEqual({
      path: `${W}/test.txt`,
      file_type: 'file',
      size: 13,
      modified_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      is_readable: true,
      is_directory: false,
    });
    expect(Math.abs(Date.parse(file.modified_time) - Date.now())).toBeLessThan(10 * 60_000);
    const dir = await value<ProviderFileStats>(call('get_file_stats', { path: `${W}/subdir/` }));
    expect(dir).toMatchObject({
      path: `${W}/subdir`,
      file_type: 'directory',
      is_directory: true,
      is_readable: true,
    });
  });

  it('reports a link as a link, telling about its target only when it stays inside', async () => {
    const inside = await value<ProviderFileStats>(call('get_file_stats', { path: `${W}/link-dir` }));
    expect(inside).toMatchObject({
      file_type: 'symlink',
      size: 'subdir'.length,
      is_directory: true,
      is_readable: true,
    });
    const out = await value<ProviderFileStats>(call('get_file_stats', { path: `${W}/link-out-dir` }));
    expect(out).toMatchObject({ file_type: 'symlink', is_directory: false, is_readable: false });
    expectNoLeak(out);
  });

  it('answers FileNotFoundError for a missing path and PermissionError through a link out', async () => {
    expect(await failure(call('get_file_stats', { path: `${W}/missing` }))).toEqual({
      error: `Path not found: ${W}/missing`,
      error_type: 'FileNotFoundError',
    });
    const through = await failure(call('get_file_stats', { path: `${W}/link-out-dir/secret.txt` }));
    expect(through.error_type).toBe('PermissionError');
    expectNoLeak(through);
  });
});

describe('calculate_file_hash', () => {
  it.each(['md5', 'sha1', 'sha256', 'sha512', 'SHA-256'])('computes %s', async (algorithm) => {
    const expected = createHash(algorithm.toLowerCase().replace('-', '')).update(binary).digest('hex');
    const run = await call('calculate_file_hash', { file_path: `${W}/binary.bin`, algorithm });
    expect(run.result).toEqual({ ok: true, value: expected });
    expect(run.bytes).toBe(binary.length);
  });

  it('defaults to md5 and refuses other algorithms', async () => {
    expect(await value(call('calculate_file_hash', { file_path: `${W}/test.txt` }))).toBe(
      createHash('md5').update('Hello, World!').digest('hex'),
    );
    expect(
      await failure(call('calculate_file_hash', { file_path: `${W}/test.txt`, algorithm: 'crc32' })),
    ).toEqual({
      error: 'Invalid hash algorithm: "crc32" (use md5, sha1, sha256 or sha512)',
      error_type: 'FileProviderError',
    });
  });
});

describe('My Files, the virtual tree', () => {
  const M = `${W}/my_files`;

  it('lists the source directories and the newest version of each name by source', async () => {
    expect(await value(call('list_directory', { directory_path: M }))).toEqual([
      `${M}/uploaded`,
      `${M}/generated`,
      `${M}/deferred`,
    ]);
    expect(await value(call('list_directory', { directory_path: `${M}/uploaded` }))).toEqual([
      `${M}/uploaded/report.txt`,
    ]);
    expect(await value(call('list_directory', { directory_path: `${M}/generated` }))).toEqual([
      `${M}/generated/out.json`,
      `${M}/generated/shared.txt`,
    ]);
    expect(await value(call('list_directory', { directory_path: `${M}/deferred` }))).toEqual([
      `${M}/deferred/later.bin`,
    ]);
    const everything = await value<string[]>(call('list_directory', { directory_path: M, recursive: true }));
    expect(everything).toHaveLength(7);
    expect(await value(call('find_files', { directory_path: M, patterns: ['*.json', '*.bin'] }))).toEqual([
      `${M}/generated/out.json`,
      `${M}/deferred/later.bin`,
    ]);
  });

  it('reads, hashes and describes a file', async () => {
    expect(await value(call('read_file', { file_path: `${M}/uploaded/report.txt` }))).toBe('new report');
    expect(await value(call('read_file_binary', { file_path: `${M}/deferred/later.bin` }))).toBe(
      Buffer.from([9, 8, 7]).toString('base64'),
    );
    expect(
      await value(
        call('calculate_file_hash', { file_path: `${M}/generated/shared.txt`, algorithm: 'sha256' }),
      ),
    ).toBe(createHash('sha256').update('then generated').digest('hex'));
    const stats = await value<ProviderFileStats>(
      call('get_file_stats', { path: `${M}/uploaded/report.txt` }),
    );
    const record = await storage.files.stat(storage.owner, { name: 'report.txt' });
    expect(stats).toEqual({
      path: `${M}/uploaded/report.txt`,
      file_type: 'file',
      size: 10,
      modified_time: record.createdAt.toISOString(),
      is_readable: true,
      is_directory: false,
    });
    expect(await value(call('get_file_stats', { path: `${M}/generated` }))).toMatchObject({
      file_type: 'directory',
      is_directory: true,
    });
  });

  it('applies the size limit before reading, and answers missing names', async () => {
    expect(
      await failure(call('read_file', { file_path: `${M}/uploaded/report.txt`, max_size: '3' })),
    ).toEqual({
      error: 'File size 10 exceeds limit 3',
      error_type: 'FileSizeLimitExceededError',
    });
    for (const path of [
      `${M}/uploaded/nope.txt`,
      `${M}/uploaded/shared.txt`,
      `${M}/shadowed.txt`,
      `${M}/uploaded/a/b`,
    ]) {
      expect((await failure(call('read_file', { file_path: path }))).error_type).toBe('FileNotFoundError');
    }
    expect((await failure(call('read_file', { file_path: `${M}/uploaded` }))).error_type).toBe(
      'FileProviderError',
    );
    expect(
      (await failure(call('list_directory', { directory_path: `${M}/uploaded/report.txt` }))).error_type,
    ).toBe('FileProviderError');
  });
});

describe('traversal and link attacks', () => {
  it.each([
    `${W}/../alice2/secret.txt`,
    `${W}/..\\alice2\\secret.txt`,
    `${W}/%2e%2e/alice2/secret.txt`,
    `${W}/..%2Falice2%2Fsecret.txt`,
    `${W}/%252e%252e/alice2/secret.txt`,
    '/tmp/alice2/secret.txt',
    '~/secret.txt',
    `${W}/secret.txt\0.png`,
    `${W}/link-out`,
    `${W}/link-out-relative`,
    `${W}/link-out-dir/secret.txt`,
    `${W}/subdir/chain-out/secret.txt`,
  ])('read_file %j is a PermissionError that reveals nothing', async (file_path) => {
    for (const tool of ['read_file', 'read_file_binary', 'calculate_file_hash']) {
      const error = await failure(call(tool, { file_path }));
      expect(error.error_type).toBe('PermissionError');
      expectNoLeak(error);
    }
  });

  it('a dangling link out is refused like one whose target exists (no existence oracle)', async () => {
    const dangling = await failure(call('read_file', { file_path: `${W}/dangling-out` }));
    const existing = await failure(call('read_file', { file_path: `${W}/link-out` }));
    expect(dangling.error_type).toBe('PermissionError');
    expect(dangling.error.replace('dangling-out', 'X')).toBe(existing.error.replace('link-out', 'X'));
  });

  it('a hard link to a file outside is not read', async () => {
    await link(join(outside, 'secret.txt'), join(ws, 'hard.txt'));
    const error = await failure(call('read_file', { file_path: `${W}/hard.txt` }));
    expect(error.error_type).toBe('PermissionError');
    expectNoLeak(error);
    await rm(join(ws, 'hard.txt'));
  });

  it('a file replaced by a link after the check is not read through the link', async () => {
    await writeFile(join(ws, 'swap.txt'), 'inside');
    const context = await createOperationContext(scope, new AbortController().signal);
    const path = parseProviderPath(scope, `${W}/swap.txt`);
    if (path.kind !== 'workspace') throw new Error('expected a workspace path');
    const resolved = await resolveWorkspacePath(context, path, true);
    expect(resolved.stats.isFile()).toBe(true);
    // The swap: an atomic rename of a link over the checked file.
    await symlink(join(outside, 'secret.txt'), join(ws, 'swap.tmp'));
    await rename(join(ws, 'swap.tmp'), join(ws, 'swap.txt'));
    const opened = openResolvedFile(context, resolved.hostPath, path.toolPath, undefined);
    await expect(opened).rejects.toBeInstanceOf(ProviderFailure);
    const error = await opened.catch((failed: ProviderFailure) => failed.providerError);
    expect(error).toMatchObject({ error_type: 'PermissionError' });
    expectNoLeak(error);
  });

  it('a directory replaced by a link after the check is not read through the link', async () => {
    await mkdir(join(ws, 'swapdir'), { recursive: true });
    await writeFile(join(ws, 'swapdir', 'secret.txt'), 'inside');
    const context = await createOperationContext(scope, new AbortController().signal);
    const path = parseProviderPath(scope, `${W}/swapdir/secret.txt`);
    if (path.kind !== 'workspace') throw new Error('expected a workspace path');
    const resolved = await resolveWorkspacePath(context, path, true);
    await rm(join(ws, 'swapdir'), { recursive: true });
    await symlink(outside, join(ws, 'swapdir'));
    const error = await openResolvedFile(context, resolved.hostPath, path.toolPath, undefined).then(
      () => undefined,
      (failed: ProviderFailure) => failed.providerError,
    );
    expect(error?.error_type).toBe('PermissionError');
    expectNoLeak(error);
  });

  it('reads racing a link swapped in and out never return the outside bytes', async () => {
    await writeFile(join(ws, 'race.txt'), 'inside');
    let running = true;
    const swapper = (async () => {
      for (let i = 0; running && i < 2000; i++) {
        await symlink(join(outside, 'secret.txt'), join(ws, 'race.link')).catch(() => undefined);
        await rename(join(ws, 'race.link'), join(ws, 'race.txt'));
        await writeFile(join(ws, 'race.new'), 'inside');
        await rename(join(ws, 'race.new'), join(ws, 'race.txt'));
      }
    })();
    for (let i = 0; i < 300; i++) {
      const { result } = await call('read_file', { file_path: `${W}/race.txt` });
      if (result.ok) expect(result.value).toBe('inside');
      expectNoLeak(result);
    }
    running = false;
    await swapper;
    // The swapper ends with the regular file in place: it reads normally again.
    expect(await value(call('read_file', { file_path: `${W}/race.txt` }))).toBe('inside');
  });

  it('listings racing a directory swapped for a link never show the outside entries', async () => {
    await mkdir(join(ws, 'racedir'), { recursive: true });
    await writeFile(join(ws, 'racedir', 'mine.txt'), 'x');
    let running = true;
    const swapper = (async () => {
      for (let i = 0; running && i < 2000; i++) {
        await rename(join(ws, 'racedir'), join(ws, 'racedir.real'));
        await symlink(outside, join(ws, 'racedir'));
        await rm(join(ws, 'racedir'));
        await rename(join(ws, 'racedir.real'), join(ws, 'racedir'));
      }
    })();
    for (let i = 0; i < 300; i++) {
      const { result } = await call('list_directory', { directory_path: `${W}/racedir` });
      expect(JSON.stringify(result)).not.toContain('secret.txt');
    }
    running = false;
    await swapper;
  });
});

describe('a user without a workspace directory yet', () => {
  it('sees My Files only', async () => {
    const fresh = { ...scope, workspaceHostDir: join(storage.dir, 'ws', 'nobody-yet') };
    expect(await value(runProviderTool(fresh, 'list_directory', { directory_path: W }))).toEqual([
      `${W}/my_files`,
    ]);
    expect(await value(runProviderTool(fresh, 'file_exists', { path: `${W}/test.txt` }))).toBe(false);
    expect(
      (await failure(runProviderTool(fresh, 'read_file', { file_path: `${W}/test.txt` }))).error_type,
    ).toBe('FileNotFoundError');
    expect(
      await value(runProviderTool(fresh, 'read_file', { file_path: `${W}/my_files/uploaded/report.txt` })),
    ).toBe('new report');
  });
});

describe('allowedPaths and blockedPaths', () => {
  const policy = {
    allowedPaths: ['/tmp/{{user}}/subdir', '/tmp/{{user}}/link-inside'],
    blockedPaths: ['/tmp/{{user}}/subdir/deeper'],
  };

  it('refuses outside the allowed paths and inside blocked ones, also through links', async () => {
    expect(await value(call('read_file', { file_path: `${W}/subdir/nested.py` }, policy))).toBe(
      "print('test')",
    );
    expect((await failure(call('read_file', { file_path: `${W}/test.txt` }, policy))).error_type).toBe(
      'PermissionError',
    );
    expect(
      (await failure(call('read_file', { file_path: `${W}/subdir/deeper/deep.py` }, policy))).error_type,
    ).toBe('PermissionError');
    // The link is allowed, and so is its target.
    expect(await value(call('read_file', { file_path: `${W}/link-inside` }, policy))).toBe("print('test')");
    // An allowed link to a blocked target is refused.
    const blockedTarget = { allowedPaths: [], blockedPaths: ['/tmp/{{user}}/subdir'] };
    expect(
      (await failure(call('read_file', { file_path: `${W}/link-inside` }, blockedTarget))).error_type,
    ).toBe('PermissionError');
  });

  it('leaves blocked entries out of listings and walks', async () => {
    const listed = await value<string[]>(
      call('list_directory', { directory_path: `${W}/subdir`, recursive: true }, policy),
    );
    expect(listed.some((path) => path.includes('deeper'))).toBe(false);
    expect(listed).toContain(`${W}/subdir/nested.py`);
    const noDeferred = await value<string[]>(
      call(
        'list_directory',
        { directory_path: `${W}/my_files` },
        { blockedPaths: ['/tmp/{{user}}/my_files/deferred'] },
      ),
    );
    expect(noDeferred).toEqual([`${W}/my_files/uploaded`, `${W}/my_files/generated`]);
    expect(await value(call('file_exists', { path: `${W}/subdir/deeper` }, policy))).toBe(false);
  });
});

describe('tools and parameters', () => {
  it('offers the optional tools only when enabled', () => {
    expect(providerToolDefinitions(SETTINGS).map((tool) => tool.name)).toEqual([
      'read_file',
      'read_file_binary',
      'list_directory',
      'file_exists',
      'get_file_stats',
      'calculate_file_hash',
      'find_files',
    ]);
    const required = providerToolDefinitions({ ...SETTINGS, enableOptionalTools: false });
    expect(required.map((tool) => tool.name)).toEqual([
      'read_file',
      'read_file_binary',
      'list_directory',
      'file_exists',
      'get_file_stats',
    ]);
    const readFile = required[0];
    expect(readFile?.inputSchema).toMatchObject({
      type: 'object',
      required: ['file_path'],
      properties: { file_path: { type: 'string' }, max_size: { type: 'integer' } },
    });
  });

  it('answers an unknown or disabled tool with FileProviderError', async () => {
    expect(await failure(call('delete_file', { path: `${W}/test.txt` }))).toEqual({
      error: 'Unknown tool: delete_file',
      error_type: 'FileProviderError',
    });
    expect(
      (
        await failure(
          call('find_files', { directory_path: W, patterns: ['*'] }, { enableOptionalTools: false }),
        )
      ).error,
    ).toBe('Unknown tool: find_files');
  });

  it.each([
    ['read_file', {}, 'Invalid parameters: file_path: is required'],
    ['read_file', { file_path: 7 }, 'Invalid parameters: file_path: expected a string'],
    [
      'read_file',
      { file_path: `${W}/test.txt`, max_size: 'big' },
      'Invalid parameters: max_size: expected a non-negative integer',
    ],
    [
      'read_file',
      { file_path: `${W}/test.txt`, max_size: -1 },
      'Invalid parameters: max_size: expected a non-negative integer',
    ],
    [
      'read_file',
      { file_path: `${W}/test.txt`, max_size: 1.5 },
      'Invalid parameters: max_size: expected a non-negative integer',
    ],
    [
      'list_directory',
      { directory_path: W, recursive: 'yes' },
      'Invalid parameters: recursive: expected a boolean',
    ],
    ['find_files', { directory_path: W }, 'Invalid parameters: patterns: is required'],
    ['find_files', { directory_path: W, patterns: [1] }, 'Invalid parameters: patterns.0: expected a string'],
    ['get_file_stats', 'not an object', 'Invalid parameters: arguments: expected an object'],
  ])('%s %j → %s', async (tool, args, message) => {
    expect(await failure(call(tool, args))).toEqual({ error: message, error_type: 'FileProviderError' });
  });

  it('accepts numeric strings, "true"/"false", null for an omitted value and one pattern as a string', async () => {
    expect(
      await value(call('read_file', { file_path: `${W}/test.txt`, max_size: ' 100 ', encoding: null })),
    ).toBe('Hello, World!');
    const listed = await value<string[]>(
      call('list_directory', {
        directory_path: `${W}/subdir`,
        recursive: 'FALSE',
        max_files: '2',
        pattern: null,
      }),
    );
    expect(listed).toHaveLength(2);
    expect(await value(call('find_files', { directory_path: `${W}/subdir`, patterns: 'nested.*' }))).toEqual([
      `${W}/subdir/nested.py`,
    ]);
  });
});

describe('limits', () => {
  let big: string;
  let many: string;

  beforeAll(async () => {
    many = join(ws, 'many');
    await mkdir(many);
    for (let start = 0; start < 10_000; start += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          writeFile(join(many, `f${String(start + i).padStart(5, '0')}.txt`), ''),
        ),
      );
    }
    // 100 MiB of zeros, sparse: cheap to make, still 100 MiB to read.
    big = join(ws, 'big.bin');
    await writeFile(big, '');
    await truncate(big, 100 * 1024 * 1024);
  }, 120_000);

  it('a 10,000-entry directory listing returns exactly the cap, fast', async () => {
    const started = performance.now();
    const capped = await call('list_directory', { directory_path: `${W}/many` }, { maxListFiles: 500 });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(capped.count).toBe(500);
    expect(new Set(capped.result.ok ? (capped.result.value as string[]) : []).size).toBe(500);
    const asked = await call(
      'list_directory',
      { directory_path: `${W}/many`, max_files: 25 },
      { maxListFiles: 500 },
    );
    expect(asked.count).toBe(25);
    const all = await value<string[]>(call('list_directory', { directory_path: `${W}/many` }));
    expect(all).toHaveLength(10_000);
    expect(all.every((path) => /^\/tmp\/alice\/many\/f\d{5}\.txt$/.test(path))).toBe(true);
    const recursive = await call(
      'find_files',
      { directory_path: W, patterns: ['*.txt'] },
      { maxListFiles: 300 },
    );
    expect(recursive.count).toBe(300);
  });

  it('hashes a 100 MiB file streaming: RSS grows by less than 32 MiB', async () => {
    const expected = await new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(big)
        .on('data', (chunk) => hash.update(chunk))
        .on('end', () => resolve(hash.digest('hex')))
        .on('error', reject);
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    const run = await call('calculate_file_hash', { file_path: `${W}/big.bin`, algorithm: 'sha256' });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(run.result).toEqual({ ok: true, value: expected });
    expect(run.bytes).toBe(100 * 1024 * 1024);
    expect(peak - before).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);

  it('refuses the 100 MiB file for reading before reading it', async () => {
    const started = performance.now();
    expect(await failure(call('read_file_binary', { file_path: `${W}/big.bin` }))).toEqual({
      error: `File size ${100 * 1024 * 1024} exceeds limit ${10 * 1024 * 1024}`,
      error_type: 'FileSizeLimitExceededError',
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('times out after settings.timeoutSeconds and closes the file', async () => {
    const run = await call('calculate_file_hash', { file_path: `${W}/big.bin` }, { timeoutSeconds: 0.01 });
    expect(run.result).toEqual({
      ok: false,
      error: { error: 'calculate_file_hash timed out after 0.01 s', error_type: 'FileProviderError' },
    });
    const bigIsOpen = async () => {
      for (const fd of await readdir('/proc/self/fd')) {
        if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === big) return true;
      }
      return false;
    };
    await vi.waitFor(async () => expect(await bigIsOpen()).toBe(false), { timeout: 5000 });
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await call('list_directory', { directory_path: `${W}/many` }, {}, controller.signal);
    expect(run.result).toEqual({
      ok: false,
      error: { error: 'list_directory was cancelled', error_type: 'FileProviderError' },
    });
    expect((await call('file_exists', { path: `${W}/test.txt` }, {}, controller.signal)).result).toEqual({
      ok: true,
      value: false,
    });
  });
});

describe('OS permissions', () => {
  // Root reads any file whatever its mode, so as root the check runs with the effective uid of
  // `nobody` for the call (seteuid, undone after): the OS really refuses the read then.
  const asRoot = process.getuid?.() === 0;
  const canDropPrivileges = !asRoot || typeof process.seteuid === 'function';
  if (!canDropPrivileges) {
    console.warn(
      '!!! provider-operations.test.ts: running as root without seteuid: the permission-denied test CANNOT run !!!',
    );
  }

  it.skipIf(!canDropPrivileges)(
    'a file the process may not read is a PermissionError, and stats say so',
    async () => {
      const locked = join(ws, 'locked.txt');
      await writeFile(locked, 'private');
      await chmod(locked, 0o000);
      const asUnprivileged = async <T>(action: () => Promise<T>): Promise<T> => {
        if (!asRoot) return action();
        // nobody must reach the workspace to meet the file's own mode.
        for (let dir = ws; dir.startsWith(storage.dir); dir = join(dir, '..')) await chmod(dir, 0o755);
        process.seteuid?.(65_534);
        try {
          return await action();
        } finally {
          process.seteuid?.(0);
        }
      };
      const [read, hash, stats] = await asUnprivileged(() =>
        Promise.all([
          call('read_file', { file_path: `${W}/locked.txt` }),
          call('calculate_file_hash', { file_path: `${W}/locked.txt` }),
          call('get_file_stats', { path: `${W}/locked.txt` }),
        ]),
      );
      expect(read.result).toEqual({
        ok: false,
        error: { error: `Permission denied: ${W}/locked.txt`, error_type: 'PermissionError' },
      });
      expect(hash.result.ok ? undefined : hash.result.error.error_type).toBe('PermissionError');
      expect(stats.result).toMatchObject({
        ok: true,
        value: { file_type: 'file', is_readable: false, size: 7 },
      });
    },
  );
});
