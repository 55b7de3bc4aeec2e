// The `metrics` section of ferry.config and its variables: loopback by default, the token's rules,
// addresses checked like auth.trustedProxies, typos refused.
import { describe, expect, it } from 'vitest';
import { parseFerryConfig } from '../../src/config/load-config.js';

const parse = (file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  parseFerryConfig(file, { env, cwd: '/tmp' });

describe('metrics settings', () => {
  it('default to loopback only and no token', () => {
    expect(parse({}).app.metrics).toEqual({ allowFrom: ['127.0.0.1', '::1'] });
  });

  it('come from the file, and the variables override it', () => {
    const file = { metrics: { allowFrom: ['10.0.0.0/8'], token: 'from-the-file-0123456789' } };
    expect(parse(file).app.metrics).toEqual(file.metrics);
    const env = {
      FERRY_METRICS_ALLOW_FROM: '192.0.2.7, fd00::/8',
      FERRY_METRICS_TOKEN: 'from-the-env-0123456789',
    };
    expect(parse(file, env).app.metrics).toEqual({
      allowFrom: ['192.0.2.7', 'fd00::/8'],
      token: 'from-the-env-0123456789',
    });
  });

  it('refuse a short token, a bad address and an unknown key, naming each', () => {
    expect(() => parse({}, { FERRY_METRICS_TOKEN: 'short' })).toThrow(
      /metrics\.token \(or FERRY_METRICS_TOKEN\) must be at least 16 characters/,
    );
    expect(() => parse({ metrics: { allowFrom: ['localhost'] } })).toThrow(
      /metrics\.allowFrom\.0: must be an IP/,
    );
    expect(() => parse({ metrics: { allowFROM: [] } })).toThrow(/metrics\.allowFROM: unknown setting/);
  });
});
