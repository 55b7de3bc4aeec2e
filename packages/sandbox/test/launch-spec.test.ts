import { describe, expect, it } from 'vitest';
import { SANDBOX_INHERITED_ENV } from '../src/bubblewrap-launcher.js';
import { INHERITED_ENV_VARS, inheritedEnv } from '../src/launch-spec.js';

describe('the inherited environment', () => {
  it('passes only the named variables, never other ones or exported shell functions', () => {
    expect(
      inheritedEnv({ PATH: '/bin', LANG: 'C.UTF-8', AWS_SECRET_ACCESS_KEY: 'x', SHELL: '() { :; }' }),
    ).toEqual({ PATH: '/bin', LANG: 'C.UTF-8' });
    expect(inheritedEnv({ PATH: '/bin', HOME: '/root' }, ['PATH'])).toEqual({ PATH: '/bin' });
  });

  it('is smaller in the sandbox: no host identity, no host shell', () => {
    expect([...SANDBOX_INHERITED_ENV].sort()).toEqual(['LANG', 'LC_ALL', 'PATH', 'TERM', 'TZ']);
    for (const name of SANDBOX_INHERITED_ENV) expect(INHERITED_ENV_VARS).toContain(name);
  });
});
