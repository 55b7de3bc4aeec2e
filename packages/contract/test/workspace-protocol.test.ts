import { describe, expect, it } from 'vitest';
import {
  fillTemplate,
  fillTemplates,
  fillUserTemplate,
  hasOnlyUserPlaceholders,
  placeholdersIn,
  SANDBOX_MODES,
} from '../src/protocol/workspace-protocol.js';

describe('{{user}} templates', () => {
  it('names the placeholders a value uses, or undefined for an unknown one or a stray brace', () => {
    expect(placeholdersIn('plain')).toEqual([]);
    expect(placeholdersIn('{{fileProviderUrl}}?u={{user}}&t={{fileProviderToken}}')?.sort()).toEqual([
      'fileProviderToken',
      'fileProviderUrl',
      'user',
    ]);
    for (const bad of ['{{username}}', '{{ user }}', '{{user}', 'a}}b', '{{fileProviderUrl}}{{']) {
      expect(placeholdersIn(bad), bad).toBeUndefined();
    }
  });

  it('fills every placeholder in one pass: a filled value is never read as a template again', () => {
    const values = { user: 'alice', fileProviderUrl: 'http://h/{{user}}', fileProviderToken: 't.k' };
    expect(fillTemplate('{{fileProviderUrl}} {{fileProviderToken}} {{user}}', values)).toBe(
      'http://h/{{user}} t.k alice',
    );
    expect(() => fillTemplate('{{fileProviderToken}}', { user: 'alice' })).toThrowError(/fileProviderToken/);
  });

  it('fills every {{user}} with a valid username', () => {
    expect(fillUserTemplate('/tmp/{{user}}/out-{{user}}', 'alice@example.com')).toBe(
      '/tmp/alice@example.com/out-alice@example.com',
    );
    expect(fillTemplates({ 'X-User': '{{user}}', Other: 'fixed' }, { user: 'bob' })).toEqual({
      'X-User': 'bob',
      Other: 'fixed',
    });
  });

  it('refuses usernames that are not valid, even where no placeholder is used', () => {
    for (const user of ['', '../etc', 'a b', 'bob\r\nX-Admin: 1', '-rf', 'a/b']) {
      expect(() => fillUserTemplate('{{user}}', user)).toThrowError(/Invalid username/);
      expect(() => fillUserTemplate('fixed', user)).toThrowError(/Invalid username/);
    }
  });

  it('accepts only the {{user}} placeholder', () => {
    expect(hasOnlyUserPlaceholders('plain')).toBe(true);
    expect(hasOnlyUserPlaceholders('{{user}}-{{user}}')).toBe(true);
    expect(hasOnlyUserPlaceholders('{{User}}')).toBe(false);
    expect(hasOnlyUserPlaceholders('{{user}')).toBe(false);
    expect(hasOnlyUserPlaceholders('{{ user }}')).toBe(false);
  });
});

describe('sandbox modes', () => {
  it('are fixed: a config cannot add one at run time', () => {
    expect(SANDBOX_MODES).toEqual(['required', 'auto', 'off']);
    expect(Object.isFrozen(SANDBOX_MODES)).toBe(true);
  });
});
