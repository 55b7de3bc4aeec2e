// The `fileProvider` section: the spec's keys (snake_case, as its example configuration), defaults
// filled, camelCase out, frozen; every problem named by its key.
import { describe, expect, it } from 'vitest';
import {
  fileProviderSettingsSchema,
  parseFileProviderSettings,
} from '../../src/file-provider/provider-settings.js';

describe('file provider settings', () => {
  it('fills the defaults: off, 10 MiB, 30 s, no path limits, optional tools, 10,000 entries, 1 h tokens', () => {
    const settings = parseFileProviderSettings(undefined);
    expect(settings).toEqual({
      enabled: false,
      maxFileSize: 10_485_760,
      timeoutSeconds: 30,
      allowedPaths: [],
      blockedPaths: [],
      enableOptionalTools: true,
      maxListFiles: 10_000,
      tokenTtlSeconds: 3600,
    });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.allowedPaths)).toBe(true);
    expect(parseFileProviderSettings({})).toEqual(settings);
  });

  it('reads the spec’s example configuration, normalizing paths and keeping {{user}}', () => {
    const settings = parseFileProviderSettings({
      enabled: true,
      max_file_size: 1_048_576,
      timeout_seconds: 2.5,
      allowed_paths: ['/tmp/{{user}}/projects/', '/tmp//{{user}}/./my_files'],
      blocked_paths: ['/tmp/{{user}}/.git'],
      enable_optional_tools: false,
      max_list_files: 50,
      token_ttl_seconds: 86_400,
    });
    expect(settings).toEqual({
      enabled: true,
      maxFileSize: 1_048_576,
      timeoutSeconds: 2.5,
      allowedPaths: ['/tmp/{{user}}/projects', '/tmp/{{user}}/my_files'],
      blockedPaths: ['/tmp/{{user}}/.git'],
      enableOptionalTools: false,
      maxListFiles: 50,
      tokenTtlSeconds: 86_400,
    });
    expect(parseFileProviderSettings({ allowed_paths: ['/'] }).allowedPaths).toEqual(['/']);
  });

  it('refuses relative paths, .. segments, NUL and other placeholders, naming each key', () => {
    const issues = (input: unknown) =>
      fileProviderSettingsSchema
        .safeParse(input)
        .error?.issues.map((issue) => [issue.path.join('.'), issue.message]);
    expect(issues({ allowed_paths: ['tmp/x'], blocked_paths: ['/tmp/../etc'] })).toEqual([
      ['allowed_paths.0', 'paths must be absolute (start with /)'],
      ['blocked_paths.0', 'paths must not contain ".." segments'],
    ]);
    expect(issues({ allowed_paths: ['/tmp/{{username}}'] })).toEqual([
      ['allowed_paths.0', 'the only placeholder allowed in a path is {{user}}'],
    ]);
    expect(issues({ blocked_paths: ['/tmp/a\0b'] })?.[0]?.[1]).toBe('paths must not contain NUL');
  });

  it('refuses limits out of range and unknown keys, in one error listing each', () => {
    expect(() => parseFileProviderSettings({ enabled: true, enabeld: true })).toThrow(
      /^\[ferry\/host\] invalid fileProvider settings:\n {2}fileProvider\.enabeld: unknown setting$/,
    );
    const message = (() => {
      try {
        parseFileProviderSettings({
          max_file_size: 0,
          timeout_seconds: -1,
          max_list_files: 1.5,
          token_ttl_seconds: 86_401,
        });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message.split('\n  ').slice(1)).toEqual([
      'fileProvider.max_file_size: max_file_size must be greater than 0',
      'fileProvider.timeout_seconds: timeout_seconds must be greater than 0',
      'fileProvider.max_list_files: max_list_files must be a whole number',
      'fileProvider.token_ttl_seconds: token_ttl_seconds must be at most 86400',
    ]);
    expect(() => parseFileProviderSettings({ max_file_size: 512 * 1024 * 1024 })).toThrow(
      /max_file_size must be at most 268435456/,
    );
    expect(() => parseFileProviderSettings({ enabled: 'yes' })).toThrow(/fileProvider\.enabled: /);
  });
});
