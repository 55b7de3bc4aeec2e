import { encodeDataUri, findFileInputs, MCP_FILE_KEYWORD } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { payloadOf } from '@ferry/test-helpers/example-servers';
import { describe, expect, it } from 'vitest';
import { gradientPng } from '../src/media.js';
import { IMAGE_INPUT } from '../src/xfile.js';

/** SOI, an APP0 segment, then SOF0 with height 300 and width 400: enough for a size reader. */
const JPEG_HEADER = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
  0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01,
  0x03, 0x11, 0x01, 0xff, 0xd9,
]);

describe.each(['stdio', 'http'] as const)('xfile server (SEP-2356 x-mcp-file) over %s', (transport) => {
  const server = useExampleServer('xfile', transport);

  const describeImage = (image: string) =>
    server.client.callTool({ name: 'describe_image', arguments: { image } });

  it('publishes the x-mcp-file keyword on a uri-format string in tools/list', async () => {
    const { tools } = await server.client.listTools();
    const schema = tools.find((tool) => tool.name === 'describe_image')?.inputSchema;
    expect(schema?.properties?.image).toEqual({
      type: 'string',
      format: 'uri',
      [MCP_FILE_KEYWORD]: { accept: ['image/png', 'image/jpeg'], maxSize: 5_242_880 },
      description: 'The image, as an RFC 2397 data URI',
    });
    expect(schema?.required).toEqual(['image']);
    // The contract (what Ferry's host uses) finds it as a file input.
    const { inputs, warnings } = findFileInputs(schema);
    expect(warnings).toEqual([]);
    expect(inputs).toEqual([{ path: ['image'], multiple: false, descriptor: IMAGE_INPUT, required: true }]);
  });

  it('describes a PNG sent as a data URI', async () => {
    const png = gradientPng(37, 21);
    const result = await describeImage(encodeDataUri({ mime: 'image/png', name: 'g.png', data: png }));
    expect(result.isError).toBeFalsy();
    expect(payloadOf(result).results).toEqual({
      summary: `37×21 PNG image, ${png.length} bytes`,
      media_type: 'image/png',
      byte_size: png.length,
      width: 37,
      height: 21,
      format: 'png',
    });
  });

  it('describes a JPEG', async () => {
    const payload = payloadOf(await describeImage(encodeDataUri({ mime: 'image/jpeg', data: JPEG_HEADER })));
    expect(payload.results).toMatchObject({
      media_type: 'image/jpeg',
      width: 400,
      height: 300,
      format: 'jpeg',
    });
  });

  it('rejects a type outside accept with E_FILE_TYPE_REJECTED', async () => {
    const result = await describeImage(encodeDataUri({ mime: 'image/gif', data: Buffer.from('GIF89a') }));
    expect(result.isError).toBe(true);
    expect(payloadOf(result).meta_data).toMatchObject({ error_code: 'E_FILE_TYPE_REJECTED' });
  });

  it('rejects a file over maxSize with E_FILE_TOO_LARGE (the body exceeds 4 MiB over HTTP)', async () => {
    const big = Buffer.alloc(IMAGE_INPUT.maxSize as number, 1);
    big.set(gradientPng(8, 8));
    const result = await describeImage(
      encodeDataUri({ mime: 'image/png', data: Buffer.concat([big, Buffer.of(0)]) }),
    );
    expect(result.isError).toBe(true);
    expect(payloadOf(result).meta_data).toMatchObject({
      error_code: 'E_FILE_TOO_LARGE',
      details: expect.objectContaining({ file_size_bytes: 5_242_881, current_limit_bytes: 5_242_880 }),
    });
  });

  it('rejects what is not a data URI, or not really an image, with E_INVALID_INPUT', async () => {
    for (const image of [
      'https://example.com/a.png',
      encodeDataUri({ mime: 'image/png', data: 'not a png' }),
    ]) {
      const result = await describeImage(image);
      expect(result.isError).toBe(true);
      expect(payloadOf(result).meta_data).toMatchObject({ error_code: 'E_INVALID_INPUT' });
    }
  });
});
