import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, prlimitOptions, resolveLimits } from '../src/sandbox-limits.js';

describe('sandbox limits', () => {
  it('fills defaults, applies layers in order, and null turns a limit off', () => {
    const limits = resolveLimits({ memoryBytes: 1000, cpuSeconds: 5 }, { cpuSeconds: null, openFiles: 64 });
    expect(limits).toEqual({ ...DEFAULT_LIMITS, memoryBytes: 1000, cpuSeconds: null, openFiles: 64 });
  });

  it('refuses unknown names and values that are not positive integers', () => {
    expect(() => resolveLimits({ memory: 1 } as never)).toThrow(/unknown limit "memory"/);
    expect(() => resolveLimits({ processes: 0 })).toThrow(/processes must be a positive integer/);
    expect(() => resolveLimits({ memoryBytes: 1.5 })).toThrow(/memoryBytes/);
    expect(() => resolveLimits({ quotaCheckMs: null as never })).toThrow(/quotaCheckMs/);
  });

  it('turns the rlimit-backed limits into prlimit options (soft = hard)', () => {
    const limits = resolveLimits({ cpuSeconds: null, memoryBytes: 2048, fileSizeBytes: 10 });
    expect(prlimitOptions(limits)).toEqual(['--data=2048', '--nofile=1024', '--nproc=256', '--fsize=10']);
  });
});
