// Base64 of a byte stream, chunk by chunk, so a file of any size is encoded without being held.
// Only whole 3-byte groups are encoded from each chunk; the 0 to 2 bytes left over are carried into
// the next, so padding appears only at the very end and the pieces join into exactly
// `Buffer.from(all bytes).toString('base64')`. Chunks are encoded in place (no copy of a chunk to
// join it with the carried bytes): the only allocation per chunk is the text it becomes.

export async function* base64Chunks(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  // At most 2 bytes, carried from the previous chunk.
  let carry = Buffer.alloc(0);
  for await (const chunk of source) {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let head = '';
    if (carry.length > 0) {
      // Complete the carried group with the chunk's first bytes.
      start = Math.min(3 - carry.length, bytes.length);
      const group = Buffer.concat([carry, bytes.subarray(0, start)]);
      if (group.length < 3) {
        carry = group;
        continue;
      }
      head = group.toString('base64');
    }
    const end = start + (bytes.length - start) - ((bytes.length - start) % 3);
    const body = end > start ? bytes.toString('base64', start, end) : '';
    // A copy: the tail must not keep the whole chunk alive until the next one arrives.
    carry = Buffer.from(bytes.subarray(end));
    if (head !== '') yield head;
    if (body !== '') yield body;
  }
  if (carry.length > 0) yield carry.toString('base64');
}
