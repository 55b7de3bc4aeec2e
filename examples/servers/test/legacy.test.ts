import { normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { describe, expect, it } from 'vitest';

describe('legacy server (v2 base64 artifacts, v1 arrays) over stdio', () => {
  const server = useExampleServer('legacy');

  it('declares no username: neither tool writes files', async () => {
    const { tools } = await server.client.listTools();
    for (const tool of tools)
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('username');
    expect(tools.map((t) => t.name).sort()).toEqual(['make_legacy_files', 'make_v2_artifacts']);
  });

  it('make_v2_artifacts returns the text as inline base64 files with display hints', async () => {
    const text = 'Grüße <aus> "Köln"\nzweite Zeile';
    const result = await server.client.callTool({ name: 'make_v2_artifacts', arguments: { text } });
    const payload = payloadOf(result);
    const artifacts = payload.artifacts as { name: string; b64: string; mime: string; size: number }[];
    expect(artifacts.map((a) => [a.name, a.mime])).toEqual([
      ['text.txt', 'text/plain'],
      ['text.html', 'text/html'],
    ]);
    const plain = Buffer.from(artifacts[0]?.b64 ?? '', 'base64');
    expect(plain.toString('utf8')).toBe(text);
    expect(artifacts[0]?.size).toBe(plain.length);
    const html = Buffer.from(artifacts[1]?.b64 ?? '', 'base64').toString('utf8');
    expect(html).toContain('<pre>Grüße &#60;aus&#62; &#34;Köln&#34;\nzweite Zeile</pre>');
    expect(payload.display).toEqual({
      open_canvas: true,
      primary_file: 'text.html',
      mode: 'replace',
      viewer_hint: 'html',
    });
    const normalized = normalizeToolResult(result);
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.form).toBe('v2');
    expect(normalized.outcome.files.map((f) => [f.name, f.size])).toEqual([
      ['text.txt', plain.length],
      ['text.html', Buffer.byteLength(html)],
    ]);
  });

  it('make_legacy_files returns returned_file_names and matching base64 contents', async () => {
    const result = await server.client.callTool({ name: 'make_legacy_files', arguments: { count: 3 } });
    const payload = payloadOf(result);
    expect(payload.results).toBe('Generated 3 files (see files)');
    expect(payload.returned_file_names).toEqual(['file_1.txt', 'file_2.txt', 'file_3.txt']);
    const contents = (payload.returned_file_contents as string[]).map((b64) =>
      Buffer.from(b64, 'base64').toString(),
    );
    expect(contents).toEqual([1, 2, 3].map((i) => `This is legacy file ${i} of 3.\n`));
    const normalized = normalizeToolResult(result);
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.form).toBe('legacy-arrays');
    expect(normalized.outcome.files).toHaveLength(3);
  });

  it('rejects a count outside 1..20 through the input schema', async () => {
    const result = await server.client.callTool({ name: 'make_legacy_files', arguments: { count: 0 } });
    expect(result.isError).toBe(true);
  });
});
