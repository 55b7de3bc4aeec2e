// MCP-native outputs, no Ferry contract at all: ImageContent, AudioContent, EmbeddedResource (text
// and blob) and ResourceLink. A file-aware host stores each as a file. The linked resource is
// registered too, so a host can fetch it with resources/read.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/media.ts [--http <port>]
import { isMainModule, runServer } from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { encodePng, type RgbaImage } from './lib/png.js';
import { encodeWav, sineTone } from './lib/wav.js';

export const IMAGE_SIZE = { width: 64, height: 48 } as const;
export const TONE = { frequency: 440, seconds: 0.25, sampleRate: 8000 } as const;
export const LINK_URI = 'ferry-example://media/greeting.txt';
export const GREETING = 'Hello from the media example server.\n';
export const NOTES_URI = 'ferry-example://media/notes.md';
export const PIXEL_URI = 'ferry-example://media/pixel.png';

export function createMediaServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-media', version: '0.1.0' });
  const empty = z.object({});
  server.registerTool(
    'make_image',
    {
      title: 'Make image',
      description: 'Returns a small PNG gradient as MCP image content.',
      inputSchema: empty,
    },
    async () => ({
      content: [
        { type: 'text', text: `A ${IMAGE_SIZE.width}×${IMAGE_SIZE.height} PNG gradient` },
        { type: 'image', data: gradientPng().toString('base64'), mimeType: 'image/png' },
      ],
    }),
  );
  server.registerTool(
    'make_audio',
    {
      title: 'Make audio',
      description: 'Returns a quarter-second 440 Hz tone (WAV) as MCP audio content.',
      inputSchema: empty,
    },
    async () => ({
      content: [
        { type: 'text', text: `${TONE.seconds} s of ${TONE.frequency} Hz` },
        { type: 'audio', data: toneWav().toString('base64'), mimeType: 'audio/wav' },
      ],
    }),
  );
  server.registerTool(
    'make_resource',
    {
      title: 'Make resource',
      description: 'Returns two embedded resources: a Markdown text and a PNG blob.',
      inputSchema: empty,
    },
    async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: NOTES_URI,
            mimeType: 'text/markdown',
            text: '# Notes\n\nAn embedded text resource.\n',
          },
        },
        {
          type: 'resource',
          resource: { uri: PIXEL_URI, mimeType: 'image/png', blob: gradientPng(2, 2).toString('base64') },
        },
      ],
    }),
  );
  server.registerTool(
    'make_link',
    {
      title: 'Make link',
      description: 'Returns a link to a resource of this server (read it with resources/read).',
      inputSchema: empty,
    },
    async () => ({
      content: [
        {
          type: 'resource_link',
          uri: LINK_URI,
          name: 'greeting.txt',
          mimeType: 'text/plain',
          description: 'A greeting, served by resources/read',
        },
      ],
    }),
  );
  server.registerResource(
    'greeting',
    LINK_URI,
    { title: 'Greeting', description: 'A short greeting', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: GREETING }] }),
  );
  return server;
}

/** A horizontal red and vertical green gradient over blue. */
export function gradientPng(width: number = IMAGE_SIZE.width, height: number = IMAGE_SIZE.height): Buffer {
  const image: RgbaImage = { width, height, data: new Uint8Array(width * height * 4) };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const red = Math.round((255 * x) / Math.max(1, width - 1));
      const green = Math.round((255 * y) / Math.max(1, height - 1));
      image.data.set([red, green, 160, 255], (y * width + x) * 4);
    }
  }
  return encodePng(image);
}

export function toneWav(): Buffer {
  return encodeWav({
    sampleRate: TONE.sampleRate,
    samples: sineTone(TONE.frequency, TONE.seconds, TONE.sampleRate),
  });
}

if (isMainModule(import.meta.url)) await runServer(createMediaServer, { name: 'media' });
