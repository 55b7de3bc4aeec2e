import { MCP_RESULT_MAX_BYTES } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { keepsMcpResult, mcpResultFields } from '../../src/pipeline/mcp-result.js';

const UI = true;

describe('keepsMcpResult', () => {
  const plain = { _meta: { other: 1 } };
  it('for a tool with MCP Apps metadata, or any tool of a server with a view', () => {
    expect(keepsMcpResult({ _meta: { ui: { visibility: ['app'] } } }, [plain])).toBe(true);
    expect(keepsMcpResult({ _meta: { 'ui/resourceUri': 'ui://y' } }, [])).toBe(true);
    expect(keepsMcpResult(plain, [plain, { _meta: { ui: { resourceUri: 'ui://x' } } }])).toBe(true);
    expect(keepsMcpResult(plain, [plain, {}])).toBe(false);
    expect(keepsMcpResult({}, [{ _meta: { ui: { visibility: ['model'] } } }])).toBe(false);
  });
});

describe('mcpResultFields', () => {
  it('passes the result on as the server sent it, when kept', () => {
    const result = {
      content: [{ type: 'text' as const, text: 'hi' }],
      structuredContent: { rows: [[1, 2]] },
      _meta: { at: 'now' },
      isError: false,
    };
    expect(mcpResultFields(true, result)).toEqual({ mcpResult: result });
    expect(mcpResultFields(false, result)).toEqual({});
  });

  it('omits a result whose JSON is over the limit, and says so', () => {
    const text = 'a'.repeat(100);
    const result = { content: [{ type: 'text' as const, text }] };
    const size = Buffer.byteLength(JSON.stringify(result));
    expect(mcpResultFields(UI, result, size)).toEqual({ mcpResult: result });
    expect(mcpResultFields(UI, result, size - 1)).toEqual({ mcpResultOmitted: true });
    // Escapes count: the exact check settles what the quick walk undercounts.
    const quoted = { content: [{ type: 'text' as const, text: '"'.repeat(50) }] };
    const quotedSize = Buffer.byteLength(JSON.stringify(quoted));
    expect(mcpResultFields(UI, quoted, quotedSize - 1)).toEqual({ mcpResultOmitted: true });
  });

  it('the default limit is 8 MiB', () => {
    const over = { content: [{ type: 'text' as const, text: 'x'.repeat(MCP_RESULT_MAX_BYTES) }] };
    expect(MCP_RESULT_MAX_BYTES).toBe(8 * 1024 * 1024);
    expect(mcpResultFields(UI, over)).toEqual({ mcpResultOmitted: true });
  });
});
