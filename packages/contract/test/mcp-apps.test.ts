import { describe, expect, it } from 'vitest';
import {
  isModelVisible,
  readToolUi,
  readUiResourceMeta,
  ToolUiSchema,
  UiResourceSchema,
} from '../src/wire/mcp-apps-api.js';

describe('readToolUi', () => {
  it('reads resourceUri and visibility, both by default', () => {
    expect(readToolUi({ ui: { resourceUri: 'ui://a/b.html' } })).toEqual({
      resourceUri: 'ui://a/b.html',
      visibility: ['model', 'app'],
    });
    expect(readToolUi({ ui: { resourceUri: 'ui://a/b.html', visibility: ['app'] } })).toEqual({
      resourceUri: 'ui://a/b.html',
      visibility: ['app'],
    });
  });

  it('takes the deprecated flat key when there is no ui.resourceUri', () => {
    expect(readToolUi({ 'ui/resourceUri': 'ui://flat' })).toEqual({
      resourceUri: 'ui://flat',
      visibility: ['model', 'app'],
    });
    expect(readToolUi({ ui: { resourceUri: 'ui://new' }, 'ui/resourceUri': 'ui://old' })?.resourceUri).toBe(
      'ui://new',
    );
  });

  it('ignores unknown visibility values and keeps the known ones in order', () => {
    expect(readToolUi({ ui: { visibility: ['app', 'telepathy', 'model', 3] } })).toEqual({
      visibility: ['model', 'app'],
    });
    // Only unknown values: offered to nobody (fail closed), not to everybody.
    expect(readToolUi({ ui: { visibility: ['robots'] } })).toEqual({ visibility: [] });
    expect(readToolUi({ ui: { visibility: 'app' } })).toEqual({ visibility: ['model', 'app'] });
  });

  it('drops a resourceUri that is not a ui:// URI', () => {
    expect(readToolUi({ ui: { resourceUri: 'https://x/y.html', visibility: ['app'] } })).toEqual({
      visibility: ['app'],
    });
    expect(readToolUi({ 'ui/resourceUri': 'javascript:alert(1)' })).toBeUndefined();
    expect(readToolUi({ ui: { resourceUri: `ui://${'x'.repeat(3000)}` } })).toEqual({
      visibility: ['model', 'app'],
    });
  });

  it('is undefined without MCP Apps metadata', () => {
    for (const meta of [undefined, null, 'ui', [], {}, { other: 1 }, { ui: 'x' }]) {
      expect(readToolUi(meta)).toBeUndefined();
    }
  });

  it('isModelVisible: true without metadata or with "model", false without it', () => {
    expect(isModelVisible(undefined)).toBe(true);
    expect(isModelVisible({ ui: { resourceUri: 'ui://a' } })).toBe(true);
    expect(isModelVisible({ ui: { visibility: ['model'] } })).toBe(true);
    expect(isModelVisible({ ui: { visibility: ['app'] } })).toBe(false);
    expect(isModelVisible({ ui: { visibility: [] } })).toBe(false);
  });

  it('its results fit ToolUiSchema', () => {
    expect(ToolUiSchema.safeParse(readToolUi({ ui: { resourceUri: 'ui://a' } })).success).toBe(true);
  });
});

describe('readUiResourceMeta', () => {
  it('keeps the fields the spec defines and drops the rest', () => {
    expect(
      readUiResourceMeta({
        csp: {
          connectDomains: ['https://api.example.com'],
          resourceDomains: [],
          frameDomains: ['https://www.youtube.com'],
          baseUriDomains: ['https://cdn.example.com'],
          scriptDomains: ['https://evil.example'],
        },
        permissions: {
          camera: {},
          microphone: { reason: 'x' },
          geolocation: {},
          clipboardWrite: {},
          usb: {},
        },
        domain: 'abc.example.com',
        prefersBorder: true,
        html: '<script>',
      }),
    ).toEqual({
      csp: {
        connectDomains: ['https://api.example.com'],
        resourceDomains: [],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://cdn.example.com'],
      },
      permissions: { camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} },
      domain: 'abc.example.com',
      prefersBorder: true,
    });
  });

  it('drops a field of the wrong type alone; a bad csp goes whole (no external origins)', () => {
    expect(
      readUiResourceMeta({ csp: { connectDomains: 'https://x' }, prefersBorder: 'yes', domain: 'd.example' }),
    ).toEqual({ domain: 'd.example' });
    expect(readUiResourceMeta({ permissions: { camera: true } })).toEqual({});
    expect(readUiResourceMeta(undefined)).toEqual({});
    expect(readUiResourceMeta(['csp'])).toEqual({});
  });

  it('the response schema takes only the MCP Apps type', () => {
    const view = { uri: 'ui://a', mimeType: 'text/html;profile=mcp-app', html: '<p>', meta: {} };
    expect(UiResourceSchema.safeParse(view).success).toBe(true);
    expect(UiResourceSchema.safeParse({ ...view, mimeType: 'text/html' }).success).toBe(false);
  });
});
