// maintenance.fileSweepMinutes (FERRY_FILE_SWEEP_MINUTES): how often expired files' space is
// reclaimed. A setting now, no longer a fixed "every 15th maintenance tick".
import { describe, expect, it } from 'vitest';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { parseFerryConfig } from '../../src/config/load-config.js';

const problemsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    return ((error as { details?: { problems?: string[] } }).details?.problems ?? []) as string[];
  }
  throw new Error('expected the config to be refused');
};

describe('maintenance.fileSweepMinutes', () => {
  it('is 15 by default, set by the file, overridden by FERRY_FILE_SWEEP_MINUTES', () => {
    expect(defaultAppConfig().maintenance).toEqual({ fileSweepMinutes: 15 });
    expect(parseFerryConfig({}, { env: {} }).app.maintenance.fileSweepMinutes).toBe(15);
    const file = { maintenance: { fileSweepMinutes: 2 } };
    expect(parseFerryConfig(file, { env: {} }).app.maintenance.fileSweepMinutes).toBe(2);
    expect(
      parseFerryConfig(file, { env: { FERRY_FILE_SWEEP_MINUTES: '0.5' } }).app.maintenance.fileSweepMinutes,
    ).toBe(0.5);
  });

  it('refuses what is not a duration up to a week, naming the setting or the variable', () => {
    expect(problemsOf(() => parseFerryConfig({ maintenance: { fileSweepMinutes: 0 } }, { env: {} }))).toEqual(
      ['maintenance.fileSweepMinutes: maintenance.fileSweepMinutes must be greater than 0'],
    );
    expect(
      problemsOf(() => parseFerryConfig({ maintenance: { fileSweepMinutes: 10_081 } }, { env: {} })),
    ).toEqual(['maintenance.fileSweepMinutes: maintenance.fileSweepMinutes must be at most 10080 (a week)']);
    expect(problemsOf(() => parseFerryConfig({ maintenance: { sweepMinutes: 5 } }, { env: {} }))).toEqual([
      expect.stringMatching(/^maintenance\.sweepMinutes: unknown setting/),
    ]);
    expect(problemsOf(() => parseFerryConfig({}, { env: { FERRY_FILE_SWEEP_MINUTES: 'often' } }))).toEqual([
      expect.stringMatching(/^FERRY_FILE_SWEEP_MINUTES \(maintenance\.fileSweepMinutes\): expected a number/),
    ]);
  });
});
