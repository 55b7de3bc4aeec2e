// docs/configuration.md lists every FERRY_* variable: this scans the source for the ones read and
// compares both ways, so a new variable cannot ship undocumented and a removed one cannot linger
// in the table.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NAME = 'FERRY_[A-Z0-9_]*[A-Z0-9]';

/** Source files under `dir` (recursively), skipping dependencies and build output. */
function sources(dir: string, skip: (path: string) => boolean = () => false): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name === 'dist' || skip(path)) return [];
    if (entry.isDirectory()) return sources(path, skip);
    return /\.(ts|tsx|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.mts') ? [path] : [];
  });
}

/** The workspace whose `src` is test code (helpers the tests share), not Ferry's. */
const TEST_HELPERS = join(ROOT, 'packages', 'test-helpers');

/** Each workspace's `sub` folder, e.g. every `packages/<name>/src`, the test helpers' apart. */
const inWorkspaces = (sub: string) =>
  ['apps', 'packages', 'examples'].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && join(ROOT, group, entry.name) !== TEST_HELPERS)
      .map((entry) => join(ROOT, group, entry.name, sub)),
  );

/**
 * The code without its comments, strings kept as they are: a variable named in a comment or a
 * sentence is not read. Quotes are tracked so `//` inside a string (a URL) is not a comment.
 */
function stripComments(code: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (quote) {
      out += c;
      if (c === '\\') out += code[++i] ?? '';
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c;
      out += c;
    } else if (c === '/' && code[i + 1] === '/') {
      while (i < code.length && code[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      i = end < 0 ? code.length : end + 1;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Variables Ferry's own code reads: `env.FERRY_X` (any object named env, process.env included),
 * a string that is exactly the name (tables of bindings, `env['FERRY_X']`, constants), or a
 * schema key at the start of a line (`FERRY_X: z.…`). Names inside longer strings are messages.
 */
function variablesRead(code: string): Set<string> {
  const text = stripComments(code);
  const found = new Set<string>();
  const patterns = [
    new RegExp(`\\.(${NAME})\\b`, 'g'),
    new RegExp(`['"\`](${NAME})['"\`]`, 'g'),
    new RegExp(`^\\s*(${NAME})\\s*:`, 'gm'),
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1] as string);
  return found;
}

/** What test and benchmark code reads from its own environment: `process.env.FERRY_X`, not assigned or deleted. */
function processEnvReads(code: string): Set<string> {
  const text = stripComments(code);
  const found = new Set<string>();
  const pattern = new RegExp(
    `(delete\\s+)?process\\.env(?:\\.(${NAME})|\\[['"\`](${NAME})['"\`]\\])(\\s*=(?!=))?`,
    'g',
  );
  for (const match of text.matchAll(pattern)) {
    if (match[1] || match[4]) continue;
    found.add((match[2] ?? match[3]) as string);
  }
  return found;
}

/** The backticked names in the first column of the table under `heading`. */
function tableVariables(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(new RegExp(`\`(${NAME})\``, 'g'))])
    .map((match) => match[1] as string);
}

function union(files: string[], read: (code: string) => Set<string>): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const file of files) {
    for (const name of read(readFileSync(file, 'utf8'))) {
      byName.set(name, [...(byName.get(name) ?? []), relative(ROOT, file)]);
    }
  }
  return byName;
}

const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  // What Ferry sets for tool servers (server-kit reads it there) is in a table of its own: read in
  // the source all the same, so it counts as documented, but it is not a setting.
  const documented = [
    ...tableVariables(doc, 'Variables'),
    ...tableVariables(doc, 'Variables Ferry gives to tool servers'),
  ];
  const documentedForTests = tableVariables(doc, 'For tests and benchmarks');

  it('lists every FERRY_* variable Ferry reads (apps, packages, their bin and scripts), and nothing else', () => {
    const files = [...inWorkspaces('src'), ...inWorkspaces('bin'), ...inWorkspaces('scripts')].flatMap(
      (dir) => sources(dir),
    );
    expect(files.length).toBeGreaterThan(100);
    const read = union(files, variablesRead);
    const missing = [...read.keys()].filter((name) => !documented.includes(name));
    expect(missing.map((name) => `${name} (read in ${read.get(name)?.join(', ')})`)).toEqual([]);
    const stale = documented.filter((name) => !read.has(name));
    expect(stale, 'listed but no longer read').toEqual([]);
    expect(documented.length, 'each variable once').toBe(new Set(documented).size);
  });

  it('lists what the tests, the browser suite, the benchmarks and scripts/ read, and nothing stale', () => {
    const dirs = [
      ...inWorkspaces('test'),
      join(TEST_HELPERS, 'src'),
      join(ROOT, 'e2e'),
      join(ROOT, 'bench'),
      join(ROOT, 'scripts'),
    ];
    // This file's own examples are not reads.
    const files = dirs.flatMap((dir) => sources(dir, (path) => path === import.meta.filename));
    const read = union(files, processEnvReads);
    const missing = [...read.keys()].filter(
      (name) => !documentedForTests.includes(name) && !documented.includes(name),
    );
    expect(missing.map((name) => `${name} (read in ${read.get(name)?.join(', ')})`)).toEqual([]);
    // Some are read through a parameter (`env.FERRY_TEST_DIALECTS`): present in that code is enough.
    const text = files.map((file) => stripComments(readFileSync(file, 'utf8'))).join('\n');
    const stale = documentedForTests.filter((name) => !new RegExp(`\\b${name}\\b`).test(text));
    expect(stale, 'listed but no longer in the test code').toEqual([]);
    expect(
      documentedForTests.filter((name) => documented.includes(name)),
      'in both tables',
    ).toEqual([]);
  });

  it('the scanner tells reads from mentions', () => {
    const code = [
      '// FERRY_IN_COMMENT is only mentioned',
      '/** FERRY_IN_DOC too */',
      "const a = env.FERRY_PROPERTY ?? 'see FERRY_IN_MESSAGE';",
      "bind('FERRY_BOUND', 'x'); const url = 'http://h/x'; // FERRY_TRAILING",
      'const schema = z.object({',
      '  FERRY_SCHEMA_KEY: z.string(),',
      '});',
      'const b = process.env[`FERRY_BRACKET`];',
    ].join('\n');
    expect([...variablesRead(code)].sort()).toEqual([
      'FERRY_BOUND',
      'FERRY_BRACKET',
      'FERRY_PROPERTY',
      'FERRY_SCHEMA_KEY',
    ]);
    expect([
      ...processEnvReads(
        'process.env.FERRY_SET = "1"; delete process.env.FERRY_GONE; const x = process.env.FERRY_READ === "1";',
      ),
    ]).toEqual(['FERRY_READ']);
    expect(
      tableVariables('x\n## T\n| a | b |\n|---|---|\n| `FERRY_A`, `FERRY_B` | `FERRY_NOT` |\n', 'T'),
    ).toEqual(['FERRY_A', 'FERRY_B']);
  });
});
