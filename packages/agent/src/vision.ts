// Images a tool returned, given to a vision-capable model once: one user message with the image
// parts goes into the next request only; afterwards it is replaced by a one-line note, so the
// bytes are not sent again in later rounds, nor stored in the conversation.
import type { ToolCallResponse } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { ModelContentPart, ModelMessage } from './model-client.js';

type UiFile = ToolCallResponse['forUi']['files'][number];

const VISION_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface ShownImage {
  name: string;
  mime: string;
  base64: string;
}

/** The image files of a tool's answer small enough to show, read from My Files. */
export async function readImages(
  files: Pick<FileStore, 'get'>,
  owner: string,
  stored: readonly Pick<UiFile, 'id' | 'name' | 'mime' | 'size'>[],
  maxBytes: number,
): Promise<ShownImage[]> {
  const images: ShownImage[] = [];
  for (const file of stored) {
    if (!VISION_TYPES.has(file.mime) || file.size > maxBytes) continue;
    const content = await files.get(owner, { id: file.id });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of content.stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        content.stream.destroy();
        break;
      }
      chunks.push(chunk as Buffer);
    }
    if (size <= maxBytes)
      images.push({ name: file.name, mime: file.mime, base64: Buffer.concat(chunks).toString('base64') });
  }
  return images;
}

export function imageMessage(images: readonly ShownImage[]): ModelMessage {
  const parts: ModelContentPart[] = [
    { type: 'text', text: `[SYSTEM: images returned by the tools: ${images.map((i) => i.name).join(', ')}]` },
    ...images.map((image) => ({
      type: 'image' as const,
      dataUrl: `data:${image.mime};base64,${image.base64}`,
    })),
  ];
  return { role: 'user', content: parts };
}

/** What stays in the request history once the images have been shown. */
export function shownNote(images: readonly ShownImage[]): ModelMessage {
  return {
    role: 'user',
    content: `[SYSTEM: images returned by the tools were shown once: ${images.map((i) => i.name).join(', ')}]`,
  };
}
