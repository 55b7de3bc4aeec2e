// Decoding of the two stream kinds the page count needs, xref streams and object streams:
// FlateDecode with or without a PNG predictor. Other filters (LZW, crypt, …) are not needed for
// those in practice and are refused.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { constants, inflate } from 'node:zlib';
import { dictOf, intOf, type PdfValue } from './pdf-syntax.js';

/** Inflated size of one stream at most (an object stream of a large document is a few MiB). */
const MAX_INFLATED = 16 * 1024 * 1024;

// Off the event loop (thread pool, a chunk at a time): a crafted stream inflating to the cap
// would otherwise stall every other request while it decodes.
const inflateAsync = promisify(inflate);
/** Bytes un-predicted between yields: a few ms each even before the loop is optimized. */
const PREDICTOR_BYTES_PER_TURN = 64 * 1024;

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const pa = Math.abs(p - left);
  const pb = Math.abs(p - up);
  const pc = Math.abs(p - upLeft);
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
}

// PNG predictors (PDF §7.4.4.4) with one byte per pixel, which is what xref streams use. It
// yields to the event loop as it goes: a 16 KiB stream can inflate to 16 MiB to walk here.
async function unpredictPng(data: Uint8Array, columns: number): Promise<Uint8Array> {
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = new Uint8Array(rows * columns);
  let sinceYield = 0;
  for (let r = 0; r < rows; r++) {
    const filter = data[r * rowLength];
    for (let c = 0; c < columns; c++) {
      if (++sinceYield === PREDICTOR_BYTES_PER_TURN) {
        sinceYield = 0;
        await nextTurn();
      }
      const raw = data[r * rowLength + 1 + c] as number;
      const left = c > 0 ? (out[r * columns + c - 1] as number) : 0;
      const up = r > 0 ? (out[(r - 1) * columns + c] as number) : 0;
      const upLeft = r > 0 && c > 0 ? (out[(r - 1) * columns + c - 1] as number) : 0;
      let value = raw;
      if (filter === 1) value = raw + left;
      else if (filter === 2) value = raw + up;
      else if (filter === 3) value = raw + ((left + up) >> 1);
      else if (filter === 4) value = raw + paeth(left, up, upLeft);
      out[r * columns + c] = value & 0xff;
    }
  }
  return out;
}

function single(value: PdfValue | undefined): PdfValue | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : { keyword: 'unsupported' }) : value;
}

export async function decodeStream(dict: Map<string, PdfValue>, raw: Uint8Array): Promise<Uint8Array> {
  const filter = single(dict.get('Filter'));
  if (filter === undefined || filter === null) return raw;
  if (filter !== 'FlateDecode') throw new SyntaxError('unsupported PDF stream filter');
  // SYNC_FLUSH keeps what decodes when a writer cut the stream or left junk after it.
  const data = await inflateAsync(raw, {
    finishFlush: constants.Z_SYNC_FLUSH,
    maxOutputLength: MAX_INFLATED,
  });
  const params = dictOf(single(dict.get('DecodeParms')));
  const predictor = intOf(params?.get('Predictor')) ?? 1;
  if (predictor === 1) return data;
  const colors = intOf(params?.get('Colors')) ?? 1;
  const bits = intOf(params?.get('BitsPerComponent')) ?? 8;
  if (predictor < 10 || colors !== 1 || bits !== 8) throw new SyntaxError('unsupported PDF predictor');
  return unpredictPng(data, intOf(params?.get('Columns')) ?? 1);
}
