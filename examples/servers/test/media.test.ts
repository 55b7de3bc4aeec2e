import { normalizeToolResult } from '@ferry/contract';
import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import { describe, expect, it } from 'vitest';
import { GREETING, IMAGE_SIZE, LINK_URI, NOTES_URI, PIXEL_URI, TONE } from '../src/media.js';
import { decodePng } from './png-reader.js';

type Block = { type: string; [key: string]: unknown };

describe('media server (MCP-native outputs) over stdio', () => {
  const server = useExampleServer('media');

  const blocks = async (name: string) => {
    const result = await server.client.callTool({ name, arguments: {} });
    expect(result.isError).toBeFalsy();
    return { result, content: result.content as Block[] };
  };

  it('make_image returns a real PNG as ImageContent', async () => {
    const { result, content } = await blocks('make_image');
    const image = content.find((block) => block.type === 'image');
    expect(image?.mimeType).toBe('image/png');
    const png = decodePng(Buffer.from(image?.data as string, 'base64'));
    expect([png.width, png.height]).toEqual([IMAGE_SIZE.width, IMAGE_SIZE.height]);
    expect(png.pixel(0, 0)).toEqual([0, 0, 160, 255]);
    expect(png.pixel(IMAGE_SIZE.width - 1, IMAGE_SIZE.height - 1)).toEqual([255, 255, 160, 255]);
    const normalized = normalizeToolResult(result);
    if (!normalized.ok) throw new Error(normalized.error);
    expect(normalized.outcome.form).toBe('mcp-content');
    expect(normalized.outcome.files.map((f) => f.mime)).toEqual(['image/png']);
  });

  it('make_audio returns a real 16-bit PCM WAV as AudioContent', async () => {
    const { content } = await blocks('make_audio');
    const audio = content.find((block) => block.type === 'audio');
    expect(audio?.mimeType).toBe('audio/wav');
    const wav = Buffer.from(audio?.data as string, 'base64');
    const samples = Math.round(TONE.seconds * TONE.sampleRate);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([
      1,
      1,
      TONE.sampleRate,
      16,
    ]);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(samples * 2);
    expect(wav.length).toBe(44 + samples * 2);
    // A tone, not silence: the peak is near half amplitude.
    let peak = 0;
    for (let i = 0; i < samples; i++) peak = Math.max(peak, Math.abs(wav.readInt16LE(44 + i * 2)));
    expect(peak).toBeGreaterThan(16_000);
  });

  it('make_resource returns an embedded text resource and an embedded PNG blob', async () => {
    const { content } = await blocks('make_resource');
    const resources = content.map((block) => block.resource as Record<string, string>);
    expect(resources[0]).toEqual({
      uri: NOTES_URI,
      mimeType: 'text/markdown',
      text: '# Notes\n\nAn embedded text resource.\n',
    });
    expect(resources[1]?.uri).toBe(PIXEL_URI);
    const png = decodePng(Buffer.from(resources[1]?.blob ?? '', 'base64'));
    expect([png.width, png.height]).toEqual([2, 2]);
  });

  it('make_link returns a ResourceLink that resources/read resolves', async () => {
    const { content } = await blocks('make_link');
    expect(content).toEqual([
      {
        type: 'resource_link',
        uri: LINK_URI,
        name: 'greeting.txt',
        mimeType: 'text/plain',
        description: 'A greeting, served by resources/read',
      },
    ]);
    const read = await server.client.readResource({ uri: LINK_URI });
    expect(read.contents).toEqual([{ uri: LINK_URI, mimeType: 'text/plain', text: GREETING }]);
  });
});
