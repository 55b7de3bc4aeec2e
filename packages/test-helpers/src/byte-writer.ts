// Test files built from written parts and gaps (zeros nobody stores), so a test can describe a
// multi-GiB file without writing it: the file builders (build-images.ts, build-xlsx.ts) write
// into a ByteWriter, and a test reads the result as a VirtualFile or, when small, a Buffer.

export interface Part {
  at: number;
  bytes: Uint8Array;
}

export interface VirtualFile {
  size: number;
  /** Bytes `start..endInclusive`; zeros where nothing was written. */
  read(start: number, endInclusive: number): Uint8Array;
}

/** Appends bytes and gaps; offsets are what the file will have, gaps included. */
export class ByteWriter {
  private readonly parts: Part[] = [];
  offset = 0;

  write(data: string | Uint8Array): this {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    this.parts.push({ at: this.offset, bytes });
    this.offset += bytes.length;
    return this;
  }

  gap(length: number): this {
    this.offset += length;
    return this;
  }

  toFile(): VirtualFile {
    return partsFile(this.offset, this.parts);
  }

  /** The whole file in memory; only for files without large gaps. */
  toBuffer(): Buffer {
    return Buffer.from(this.toFile().read(0, this.offset - 1));
  }
}

/** A file of `size` bytes holding `parts` at their offsets, zeros elsewhere. */
export function partsFile(size: number, parts: Part[]): VirtualFile {
  return {
    size,
    read(start, endInclusive) {
      const out = new Uint8Array(Math.max(0, Math.min(endInclusive + 1, size) - start));
      for (const { at, bytes } of parts) {
        const from = Math.max(start, at);
        const to = Math.min(start + out.length, at + bytes.length);
        if (from < to) out.set(bytes.subarray(from - at, to - at), from - start);
      }
      return out;
    },
  };
}
