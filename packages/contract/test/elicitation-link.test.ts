import { describe, expect, it } from 'vitest';
import { inspectElicitationLink } from '../src/protocol/elicitation-link.js';

describe('inspectElicitationLink', () => {
  it('splits a plain link around its host and warns about nothing', () => {
    expect(inspectElicitationLink('http://127.0.0.1:4567/signin/abc?x=1')).toEqual({
      ok: true,
      href: 'http://127.0.0.1:4567/signin/abc?x=1',
      host: '127.0.0.1',
      parts: { before: 'http://', host: '127.0.0.1', after: ':4567/signin/abc?x=1' },
      warnings: [],
    });
  });

  it('sets the real host apart from a user part that imitates a site', () => {
    const link = inspectElicitationLink('https://bank.example@evil.example/login');
    expect(link).toMatchObject({
      ok: true,
      host: 'evil.example',
      parts: { before: 'https://bank.example@', host: 'evil.example', after: '/login' },
      warnings: ['The part before "@" is not the site: the link goes to evil.example.'],
    });
  });

  it('warns about punycode names and unencrypted links to other hosts', () => {
    expect(
      inspectElicitationLink('https://аpple.com/').ok && inspectElicitationLink('https://аpple.com/'),
    ).toMatchObject({
      host: 'xn--pple-43d.com',
      warnings: ['The address uses an international (punycode) name, which can imitate another site.'],
    });
    expect(inspectElicitationLink('http://example.com/pay')).toMatchObject({
      warnings: ['The link is not encrypted (http, not https).'],
    });
  });

  it('refuses what is not an http(s) URL', () => {
    expect(inspectElicitationLink('javascript:alert(1)')).toEqual({
      ok: false,
      reason: 'it is a javascript: link, not a web page',
    });
    expect(inspectElicitationLink('file:///etc/passwd')).toMatchObject({ ok: false });
    expect(inspectElicitationLink('not a url')).toEqual({ ok: false, reason: 'it is not a valid URL' });
  });
});
