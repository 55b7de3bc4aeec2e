import { describe, expect, it } from 'vitest';
import { enabledDialects } from './dialects.js';

describe('FERRY_TEST_DIALECTS', () => {
  it('defaults to every dialect and narrows to a comma list', () => {
    expect([...enabledDialects({})]).toEqual(['sqlite', 'postgres']);
    expect([...enabledDialects({ FERRY_TEST_DIALECTS: '' })]).toEqual(['sqlite', 'postgres']);
    expect([...enabledDialects({ FERRY_TEST_DIALECTS: 'sqlite' })]).toEqual(['sqlite']);
    expect([...enabledDialects({ FERRY_TEST_DIALECTS: ' Postgres , sqlite ' })]).toEqual([
      'postgres',
      'sqlite',
    ]);
  });

  it('rejects a misspelt dialect instead of silently running nothing', () => {
    expect(() => enabledDialects({ FERRY_TEST_DIALECTS: 'postgresql' })).toThrow(
      /unknown dialect "postgresql"/,
    );
  });
});
