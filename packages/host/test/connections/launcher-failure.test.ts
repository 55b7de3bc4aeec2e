import { FerryError } from '@ferry/contract';
import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  exitFailure,
  intakeErrorResponse,
  intakeFailure,
  launcherFailure,
  resultTooLargeError,
} from '../../src/connections/launcher-failure.js';

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

describe('exitFailure', () => {
  it('names the signal or the exit code; a shell status above 128 is read as a signal too', () => {
    expect(exitFailure('s', { code: null, signal: 'SIGKILL' }).message).toBe(
      'MCP server "s" exited (signal SIGKILL) during the call',
    );
    expect(exitFailure('s', { code: 3, signal: null }).message).toBe(
      'MCP server "s" exited with code 3 during the call',
    );
    expect(exitFailure('s', { code: 137, signal: null }).message).toBe(
      'MCP server "s" exited with code 137 (128 + SIGKILL) during the call',
    );
    const error = exitFailure('s', undefined);
    expect(error.message).toBe('MCP server "s" closed its connection during the call');
    expect(error.toEnvelope().meta_data).toMatchObject({ error_code: 'E_TOOL_UNAVAILABLE', retryable: true });
  });
});

describe('intakeFailure', () => {
  it('recognizes the error response made for a refused answer, as the SDK hands it back', () => {
    const response = intakeErrorResponse(7, resultTooLargeError(1024, 5000));
    const asRejected = new ProtocolError(response.error.code, response.error.message, response.error.data);
    expect(intakeFailure(asRejected)).toMatchObject({
      code: 'E_RESULT_TOO_LARGE',
      details: { limit_bytes: 1024, result_bytes: 5000 },
    });
  });

  it('does not believe a server that sends the same shape of error itself', () => {
    const forged = new ProtocolError(-32000, 'too large', {
      ferry_intake: 'guess',
      code: 'E_RESULT_TOO_LARGE',
      details: {},
    });
    expect(intakeFailure(forged)).toBeUndefined();
    expect(intakeFailure(new Error('Connection closed'))).toBeUndefined();
  });
});
