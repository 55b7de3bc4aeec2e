// read_file's text decoding, chunk by chunk, strict like Python's open(encoding=...): bytes that
// are not valid in the encoding are an "Encoding error", never replacement characters. Names
// are Python's codec names; ascii and latin-1 are decoded here because the WHATWG TextDecoder
// maps both labels to windows-1252. Other labels TextDecoder knows (cp1252, shift_jis, …) work too.

export interface ChunkDecoder {
  /** Throws EncodingError for bytes the encoding cannot decode. */
  write(chunk: Buffer): string;
  end(): string;
}

export class EncodingError extends Error {}

/** undefined for an encoding Ferry does not know. */
export function createChunkDecoder(encoding: string): ChunkDecoder | undefined {
  const name = encoding.trim().toLowerCase().replaceAll('_', '-');
  switch (name) {
    case 'utf-8':
    case 'utf8':
      // Python's utf-8 keeps a byte order mark as U+FEFF; utf-8-sig drops it.
      return textDecoder('utf-8', true);
    case 'utf-8-sig':
      return textDecoder('utf-8', false);
    case 'ascii':
    case 'us-ascii':
      return singleByte(true);
    case 'latin-1':
    case 'latin1':
    case 'iso-8859-1':
    case 'iso8859-1':
    case 'l1':
      return singleByte(false);
    case 'utf-16le':
    case 'utf-16-le':
      return textDecoder('utf-16le', true);
    case 'utf-16be':
    case 'utf-16-be':
      return textDecoder('utf-16be', true);
    case 'utf-16':
    case 'utf16':
      return utf16WithBom();
    default:
      return otherDecoder(name);
  }
}

function textDecoder(label: string, keepBom: boolean): ChunkDecoder {
  const decoder = new TextDecoder(label, { fatal: true, ignoreBOM: keepBom });
  const guard = (decode: () => string) => {
    try {
      return decode();
    } catch {
      throw new EncodingError(`bytes that are not valid ${label}`);
    }
  };
  return {
    write: (chunk) => guard(() => decoder.decode(chunk, { stream: true })),
    end: () => guard(() => decoder.decode()),
  };
}

function singleByte(asciiOnly: boolean): ChunkDecoder {
  let offset = 0;
  return {
    write(chunk) {
      if (asciiOnly) {
        const at = chunk.findIndex((byte) => byte > 0x7f);
        if (at !== -1)
          throw new EncodingError(
            `byte 0x${chunk[at]?.toString(16)} at position ${offset + at} is not ascii`,
          );
      }
      offset += chunk.length;
      return chunk.toString('latin1');
    },
    end: () => '',
  };
}

/** Python's utf-16: the byte order mark says the byte order (little-endian without one) and is dropped. */
function utf16WithBom(): ChunkDecoder {
  let inner: ChunkDecoder | undefined;
  let head = Buffer.alloc(0);
  const start = (bytes: Buffer) => {
    const bigEndian = bytes[0] === 0xfe && bytes[1] === 0xff;
    inner = textDecoder(bigEndian ? 'utf-16be' : 'utf-16le', false);
    return inner;
  };
  return {
    write(chunk) {
      if (inner) return inner.write(chunk);
      head = Buffer.concat([head, chunk]);
      return head.length < 2 ? '' : start(head).write(head);
    },
    end() {
      if (inner) return inner.end();
      if (head.length === 0) return '';
      const decoder = start(head);
      return decoder.write(head) + decoder.end();
    },
  };
}

function otherDecoder(label: string): ChunkDecoder | undefined {
  try {
    new TextDecoder(label);
  } catch {
    return undefined;
  }
  return textDecoder(label, true);
}
