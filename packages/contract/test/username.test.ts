import { describe, expect, it } from 'vitest';
import { isValidUsername } from '../src/normalize/username.js';

describe('isValidUsername', () => {
  it.each(['alice', 'dev', 'a', 'bob.smith@example.com', 'x+tag', 'A_1-2', 'a..b', 'a'.repeat(128)])(
    'accepts %j',
    (name) => {
      expect(isValidUsername(name)).toBe(true);
    },
  );

  it.each([
    '',
    '.hidden',
    '-rf',
    '_x',
    'a/b',
    'a\\b',
    '..',
    'a b',
    'a\nb',
    'ünï',
    'a'.repeat(129),
    'a\0',
    5,
    null,
  ])('refuses %j', (name) => {
    expect(isValidUsername(name)).toBe(false);
  });
});
