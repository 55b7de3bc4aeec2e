import { FerryError } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { launcherFailure } from '../../src/connections/launcher-failure.js';

describe('launcherFailure', () => {
  it('turns the wrapper’s quota line into E_QUOTA_EXCEEDED with the sizes in bytes', () => {
    const stderr =
      'some tool output\n[ferry/sandbox] E_QUOTA_EXCEEDED: the workspace holds 12296 KiB, over its quota of 4096 KiB; the server was stopped. Delete files from the workspace to go on.\n';
    const error = launcherFailure(stderr, 'report');
    expect(error).toBeInstanceOf(FerryError);
    expect(error?.toEnvelope().meta_data).toMatchObject({
      error_code: 'E_QUOTA_EXCEEDED',
      details: { server: 'report', scope: 'workspace', used_bytes: 12296 * 1024, limit_bytes: 4096 * 1024 },
    });
    expect(error?.message).toMatch(/^MCP server "report" was stopped: the workspace holds/);
  });

  it('the last such line wins', () => {
    const stderr =
      '[ferry/sandbox] E_SANDBOX_UNAVAILABLE: first\n[ferry/sandbox] E_QUOTA_EXCEEDED: holds 2 KiB, over its quota of 1 KiB\n';
    expect(launcherFailure(stderr, 's')?.code).toBe('E_QUOTA_EXCEEDED');
  });

  it('ignores other codes, lines not at the start, and plain stderr', () => {
    expect(launcherFailure('[ferry/sandbox] E_INTERNAL: pretend\n', 's')).toBeUndefined();
    expect(launcherFailure('x [ferry/sandbox] E_QUOTA_EXCEEDED: inline\n', 's')).toBeUndefined();
    expect(launcherFailure('Segmentation fault\n', 's')).toBeUndefined();
    expect(launcherFailure(undefined, 's')).toBeUndefined();
  });
});
