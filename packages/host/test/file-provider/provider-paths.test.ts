// The provider's lexical path rules: what a caller may name, how it is normalized, where it lands
// in the user's provider view, and that a refusal never echoes a path outside that view.
import { describe, expect, it } from 'vitest';
import {
  checkProviderPolicy,
  isWithin,
  type ProviderPathContext,
  parseProviderPath,
} from '../../src/file-provider/provider-paths.js';

const open: ProviderPathContext = { username: 'alice', settings: { allowedPaths: [], blockedPaths: [] } };

function refusal(raw: unknown, context = open) {
  const parsed = parseProviderPath(context, raw);
  if (parsed.kind !== 'refused')
    throw new Error(`expected a refusal for ${JSON.stringify(raw)}, got ${parsed.kind}`);
  return parsed.error;
}

describe('parseProviderPath', () => {
  // The workspace, normalized (// and /./ and a trailing slash), and the virtual My Files tree.
  it.each([
    ['/tmp/alice', { kind: 'workspace', toolPath: '/tmp/alice', relative: '' }],
    ['/tmp/alice/', { kind: 'workspace', toolPath: '/tmp/alice', relative: '' }],
    [
      '//tmp//alice/./src//a.py/',
      { kind: 'workspace', toolPath: '/tmp/alice/src/a.py', relative: 'src/a.py' },
    ],
    ['/tmp/alice/my_files', { kind: 'my-files-root', toolPath: '/tmp/alice/my_files' }],
    [
      '/tmp/alice/my_files/generated/',
      { kind: 'my-files-dir', toolPath: '/tmp/alice/my_files/generated', source: 'generated' },
    ],
    [
      '/tmp/alice/my_files/uploaded/report v2.pdf',
      {
        kind: 'my-files-file',
        toolPath: '/tmp/alice/my_files/uploaded/report v2.pdf',
        source: 'uploaded',
        name: 'report v2.pdf',
      },
    ],
  ])('maps %j', (raw, expected) => {
    expect(parseProviderPath(open, raw)).toEqual(expected);
  });

  it.each([
    ['/tmp/alice/my_files/other', 'my-files-missing'],
    ['/tmp/alice/my_files/uploaded/a/b', 'my-files-missing'],
    // Only `my_files` at the workspace root is virtual.
    ['/tmp/alice/src/my_files/uploaded', 'workspace'],
  ])('maps %j to %s', (raw, kind) => {
    expect(parseProviderPath(open, raw).kind).toBe(kind);
  });

  it.each([
    ['relative', 'tmp/alice/a.txt'],
    ['empty', ''],
    ['not a string', 42],
    ['../ traversal', '/tmp/alice/../bob/secret'],
    ['trailing ..', '/tmp/alice/src/..'],
    ['..\\ traversal', '/tmp/alice/..\\..\\etc\\passwd'],
    ['backslash', '/tmp/alice/a\\b'],
    ['%2e%2e', '/tmp/alice/%2e%2e/bob'],
    ['%2E%2E upper case', '/tmp/alice/%2E%2E/bob'],
    ['%2f', '/tmp/alice/..%2fbob'],
    ['%2F', '/tmp/alice/a%2Fb'],
    ['%5c', '/tmp/alice/a%5cb'],
    ['%00', '/tmp/alice/a.txt%00.png'],
    ['double-encoded %252e', '/tmp/alice/%252e%252e/bob'],
    ['triple-encoded %25252f', '/tmp/alice/a%25252fb'],
    ['NUL', '/tmp/alice/a.txt\0.png'],
    ['~', '~/secret'],
    ['~ segment', '/tmp/alice/~/x'],
    ['~user segment', '/tmp/alice/~root/x'],
  ])('refuses a path with %s as PermissionError', (_, raw) => {
    const error = refusal(raw);
    expect(error.error_type).toBe('PermissionError');
    expect(error.error).toMatch(/^Path refused: /);
    // Nothing of the raw path comes back: it may name something outside.
    if (typeof raw === 'string' && raw.length > 4) expect(error.error).not.toContain(raw);
    expect(error.error).not.toContain('bob');
    expect(error.error).not.toContain('etc');
  });

  it.each([
    ['a sibling with the same prefix', '/tmp/alice2/secret.txt'],
    ['another user', '/tmp/bob/a.txt'],
    ['/tmp itself', '/tmp'],
    ['a system file', '/etc/passwd'],
    ['the root', '/'],
  ])('refuses %s without echoing it', (_, raw) => {
    const error = refusal(raw);
    expect(error).toEqual({
      error: 'Path is outside the files this provider serves',
      error_type: 'PermissionError',
    });
  });

  it.each([
    ['a ~ inside a name', '/tmp/alice/notes.txt~', 'notes.txt~'],
    ['%41', '/tmp/alice/%41.txt', '%41.txt'],
    ['a lone %', '/tmp/alice/100%', '100%'],
    ['%25', '/tmp/alice/50%25off', '50%25off'],
    ['..x after a dot directory', '/tmp/alice/.hidden/..x', '.hidden/..x'],
  ])('accepts a harmless name: %s', (_, raw, relative) => {
    expect(parseProviderPath(open, raw)).toMatchObject({ kind: 'workspace', relative });
  });
});

describe('allowedPaths and blockedPaths', () => {
  const narrowed: ProviderPathContext = {
    username: 'alice',
    settings: {
      allowedPaths: ['/tmp/{{user}}/project', '/tmp/{{user}}/my_files/'],
      blockedPaths: ['/tmp/{{user}}/project/.git', '/tmp/{{user}}/my_files/deferred'],
    },
  };

  it('allows what lies inside an allowed path, by components', () => {
    expect(parseProviderPath(narrowed, '/tmp/alice/project').kind).toBe('workspace');
    expect(parseProviderPath(narrowed, '/tmp/alice/project/src/a.py').kind).toBe('workspace');
    expect(parseProviderPath(narrowed, '/tmp/alice/my_files/uploaded/a.txt').kind).toBe('my-files-file');
    expect(refusal('/tmp/alice/project2/a.py', narrowed).error_type).toBe('PermissionError');
    expect(refusal('/tmp/alice/other.txt', narrowed).error).toBe(
      "Permission denied: /tmp/alice/other.txt is not in the file provider's allowed paths",
    );
    expect(refusal('/tmp/alice', narrowed).error_type).toBe('PermissionError');
  });

  it('blocked wins inside an allowed path, by components', () => {
    expect(refusal('/tmp/alice/project/.git/config', narrowed).error).toBe(
      'Permission denied: /tmp/alice/project/.git/config is blocked for the file provider',
    );
    expect(refusal('/tmp/alice/project/.git', narrowed).error_type).toBe('PermissionError');
    expect(parseProviderPath(narrowed, '/tmp/alice/project/.github/ci.yml').kind).toBe('workspace');
    expect(refusal('/tmp/alice/my_files/deferred/x.bin', narrowed).error_type).toBe('PermissionError');
  });

  it("fills {{user}} with the caller, so one user's rule does not open another's files", () => {
    const bob = { ...narrowed, username: 'bob' };
    expect(parseProviderPath(bob, '/tmp/bob/project/a').kind).toBe('workspace');
    expect(refusal('/tmp/alice/project/a', bob).error).toBe('Path is outside the files this provider serves');
    expect(checkProviderPolicy(bob, '/tmp/bob/project/.git/HEAD')?.error_type).toBe('PermissionError');
  });
});

describe('isWithin', () => {
  it('compares by path components', () => {
    expect(isWithin('/tmp/alice', '/tmp/alice')).toBe(true);
    expect(isWithin('/tmp/alice/x', '/tmp/alice')).toBe(true);
    expect(isWithin('/tmp/alice2', '/tmp/alice')).toBe(false);
    expect(isWithin('/tmp/alice2/x', '/tmp/alice')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});
