import { describe, expect, it } from 'vitest';
import { parseEnvFlag, parseEnvNumber } from '../src/codecs/env-values.js';

describe('environment values', () => {
  it('reads flags the same way for every FERRY_* setting', () => {
    for (const yes of ['true', 'TRUE', ' 1 ', 'yes', 'on']) expect(parseEnvFlag(yes)).toBe(true);
    for (const no of ['false', '0', 'No', 'off']) expect(parseEnvFlag(no)).toBe(false);
    for (const bad of ['', 'y', '2', 'enabled']) expect(parseEnvFlag(bad)).toBeUndefined();
  });

  it('reads plain decimals only', () => {
    expect(parseEnvNumber(' 30000 ')).toBe(30000);
    expect(parseEnvNumber('1.5')).toBe(1.5);
    expect(parseEnvNumber('1e3')).toBe(1000);
    // Number() would read these as 0, 16 and 0: none is what a person setting a limit meant.
    for (const bad of ['', '0x10', ' ', '12abc', 'Infinity']) expect(parseEnvNumber(bad)).toBeUndefined();
  });
});
