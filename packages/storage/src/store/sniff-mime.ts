// The type a file is stored and served with. Claims from browsers and tools are often generic
// (application/octet-stream) or wrong (a PNG sent as image/jpeg); magic bytes decide where they
// can, the claim where they cannot (text formats have no magic), the name last.
import { isGenericMime, isValidMime, mimeEssence, mimeFromName, OCTET_STREAM } from '@ferry/contract';
import { fileTypeFromBuffer } from 'file-type';

export async function sniffMime(
  head: Uint8Array,
  claimed: string | undefined,
  name: string,
): Promise<string> {
  const detected = head.length > 0 ? await fileTypeFromBuffer(head).catch(() => undefined) : undefined;
  if (detected) return detected.mime;
  if (claimed !== undefined && isValidMime(claimed) && !isGenericMime(claimed)) {
    // A binary type the bytes do not confirm is not believed: it would make a text file open
    // in an image or PDF viewer. Text-like claims stand.
    const essence = mimeEssence(claimed);
    if (!looksBinaryOnly(essence)) return essence;
  }
  const fromName = mimeFromName(name);
  if (fromName !== OCTET_STREAM && !looksBinaryOnly(fromName)) return fromName;
  return looksLikeText(head) ? 'text/plain' : OCTET_STREAM;
}

/**
 * Types that open in a media or PDF viewer and that file-type always recognises by magic bytes:
 * a claim of one of these must be confirmed by the bytes.
 */
function looksBinaryOnly(essence: string): boolean {
  if (essence === 'image/svg+xml') return false;
  return /^(image|audio|video)\//.test(essence) || essence === 'application/pdf';
}

/** UTF-8 without NUL bytes in the head: good enough to call it text. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return true;
  } catch {
    return false;
  }
}
