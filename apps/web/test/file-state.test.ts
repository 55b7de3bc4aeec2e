import { describe, expect, it } from 'vitest';
import { fileState, showsCategory } from '../src/lib/file-state';

const now = Date.parse('2026-01-01T00:00:00Z');
const inHours = (hours: number) => new Date(now + hours * 3_600_000).toISOString();

describe('fileState', () => {
  it('uploaded and generated files are saved or session-only', () => {
    expect(fileState({ source: 'uploaded', temporary: false, expiresAt: null }, now)).toMatchObject({
      text: 'saved',
      tone: 'persistent',
    });
    expect(fileState({ source: 'generated', temporary: true, expiresAt: null }, now)).toMatchObject({
      text: 'session',
      tone: 'session',
    });
  });

  it('a deferred draft is one state: draft and its expiry, explained in the tooltip', () => {
    const state = fileState({ source: 'deferred', temporary: false, expiresAt: inHours(48) }, now);
    expect(state.text).toBe('draft · expires in 2 days');
    expect(state.tone).toBe('draft');
    expect(state.text).not.toContain('saved');
    expect(state.explanation).toMatch(
      /^A draft a tool stored for you to finish later\. It is deleted on .+: finish/,
    );
    expect(state.explanation).not.toContain('session ends');
  });

  it('says when a session-only draft also goes with the session', () => {
    const state = fileState({ source: 'deferred', temporary: true, expiresAt: inHours(3) }, now);
    expect(state.text).toBe('draft · expires in 3 h');
    expect(state.explanation).toContain('also deleted when this session ends');
  });

  it('an expired draft, and a draft without expiry', () => {
    expect(fileState({ source: 'deferred', temporary: false, expiresAt: inHours(-1) }, now)).toMatchObject({
      text: 'draft · expired',
      tone: 'expired',
    });
    expect(fileState({ source: 'deferred', temporary: false, expiresAt: null }, now).text).toBe('draft');
  });
});

describe('showsCategory', () => {
  it('hides a deferred file’s "draft" category (the state says it), shows the others', () => {
    expect(showsCategory({ source: 'deferred', category: 'draft' })).toBe(false);
    expect(showsCategory({ source: 'deferred', category: ' Draft ' })).toBe(false);
    expect(showsCategory({ source: 'deferred', category: 'notes' })).toBe(true);
    expect(showsCategory({ source: 'generated', category: 'draft' })).toBe(true);
    expect(showsCategory({ source: 'uploaded', category: null })).toBe(false);
  });
});
