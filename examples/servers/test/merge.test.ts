import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeDataUri, normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { beforeAll, describe, expect, it } from 'vitest';

describe('merge server (filenames) over stdio', () => {
  const server = useExampleServer('merge');
  let inputs: string;

  beforeAll(async () => {
    // What the host materializes for file mode `path`: /tmp/{username}/input_files/<name>.
    inputs = join(server.root, 'alice', 'input_files');
    await mkdir(inputs, { recursive: true });
    await writeFile(join(inputs, 'a.csv'), 'id,name\r\n1,Ann\r\n2,"Bo, Jr."\r\n');
    await writeFile(join(inputs, 'b.csv'), '\uFEFFid,name\n3,"multi\nline"\n\n4,Dee');
    await writeFile(join(inputs, 'c.csv'), 'id,title\n5,Eve\n');
  });

  it('declares filenames as an array of strings and username', async () => {
    const { tools } = await server.client.listTools();
    expect(tools[0]?.inputSchema.properties).toMatchObject({
      filenames: { type: 'array', items: { type: 'string' }, minItems: 1 },
      username: { type: 'string' },
    });
  });

  it('concatenates files with the same header into merged.csv in the workspace', async () => {
    const dataUri = encodeDataUri({ mime: 'text/csv', name: 'd.csv', data: 'id,name\n6,Fay\n' });
    const result = await server.client.callTool({
      name: 'merge_csv',
      arguments: { filenames: [join(inputs, 'a.csv'), join(inputs, 'b.csv'), dataUri], username: 'alice' },
    });
    expect(result.isError).toBeFalsy();
    const payload = payloadOf(result);
    expect(payload.results).toEqual({
      summary: 'Merged 3 files into merged.csv: 5 rows, 2 columns',
      rows: 5,
      columns: 2,
      files: [
        { name: 'a.csv', rows: 2 },
        { name: 'b.csv', rows: 2 },
        { name: 'd.csv', rows: 1 },
      ],
    });
    const merged = join(server.root, 'alice', 'merged.csv');
    expect(payload.artifacts).toEqual([
      {
        name: 'merged.csv',
        path: merged,
        mime: 'text/csv',
        size: (await lstat(merged)).size,
        description: '3 CSV files merged',
        category: 'dataset',
      },
    ]);
    expect(await readFile(merged, 'utf8')).toBe(
      'id,name\n1,Ann\n2,"Bo, Jr."\n3,"multi\nline"\n4,Dee\n6,Fay\n',
    );
    const normalized = normalizeToolResult(result, { workspaceRoot: join(server.root, 'alice') });
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.rejected).toEqual([]);
    expect(normalized.outcome.display.primaryFile).toBe('merged.csv');
  });

  it('refuses different headers before writing anything', async () => {
    const result = await server.client.callTool({
      name: 'merge_csv',
      arguments: { filenames: [join(inputs, 'a.csv'), join(inputs, 'c.csv')], username: 'bob' },
    });
    expect(result.isError).toBe(true);
    const payload = payloadOf(result);
    expect(payload.meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
    expect((payload.results as { error: string }).error).toContain('c.csv has header ["id","title"]');
    await expect(lstat(join(server.root, 'bob', 'merged.csv'))).rejects.toThrow();
  });

  it('needs at least one file', async () => {
    const result = await server.client.callTool({
      name: 'merge_csv',
      arguments: { filenames: [], username: 'bob' },
    });
    expect(result.isError).toBe(true);
  });
});
