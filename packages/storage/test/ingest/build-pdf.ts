// Real, spec-conforming PDFs written by hand: a page tree (with intermediate nodes), one content
// stream per page that draws "Page n" in Helvetica, and either a classic xref table (PDF 1.4) or,
// as modern writers do, an xref stream with a PNG predictor and the page tree packed in a
// compressed object stream (PDF 1.5). Options add what makes page counting hard: padding that
// pushes the tree past the head, a linearization dictionary, an incremental update.

import { deflateSync } from 'node:zlib';
import { ByteWriter } from './harness.js';

export interface PdfOptions {
  pages: number;
  /** @default 'table' */
  xref?: 'table' | 'stream';
  /** Kids per intermediate page-tree node. @default 10 */
  fanout?: number;
  /** Length of a stream written before the page tree; a gap in the file, so it can be GiBs. */
  padding?: number;
  /** A linearization dictionary first: /N = pages, /L = file length (or one less: 'stale'). */
  linearized?: 'exact' | 'stale';
  /** An incremental update appended after the first %%EOF that adds this many pages. */
  updateAddsPages?: number;
  /** Writes this as the object stream's /Length (e.g. a reference into the stream itself). */
  objectStreamLength?: string;
}

interface PdfObject {
  num: number;
  body: string;
  stream?: Buffer;
  /** The /Length value as written; defaults to the stream's length. */
  length?: string;
}

function dictWithStream(body: string, stream: Buffer, length = String(stream.length)): string {
  return body.replace(/>>$/, ` /Length ${length} >>`);
}

class PdfFile {
  readonly writer = new ByteWriter();
  readonly offsets = new Map<number, number>();

  object({ num, body, stream, length }: PdfObject): void {
    this.offsets.set(num, this.writer.offset);
    if (!stream) {
      this.writer.write(`${num} 0 obj\n${body}\nendobj\n`);
      return;
    }
    this.writer.write(`${num} 0 obj\n${dictWithStream(body, stream, length)}\nstream\n`);
    this.writer.write(stream).write('\nendstream\nendobj\n');
  }

  /** A classic xref section for `nums` (grouped into contiguous subsections) and its trailer. */
  xrefTable(nums: number[], trailer: string): number {
    const start = this.writer.offset;
    const sorted = [...nums].sort((a, b) => a - b);
    let text = 'xref\n';
    for (let i = 0; i < sorted.length; ) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
      text += `${sorted[i]} ${j - i + 1}\n`;
      for (let k = i; k <= j; k++) {
        const num = sorted[k] as number;
        // Entries are exactly 20 bytes: 10-digit offset, 5-digit generation, type, CR LF.
        text +=
          num === 0
            ? '0000000000 65535 f\r\n'
            : `${String(this.offsets.get(num)).padStart(10, '0')} 00000 n\r\n`;
      }
      i = j + 1;
    }
    this.writer.write(`${text}trailer\n${trailer}\nstartxref\n${start}\n%%EOF\n`);
    return start;
  }
}

/** An xref stream's rows: type (1 byte), offset or object stream (5), generation or index (2). */
function xrefStreamData(rows: [number, number, number][]): Buffer {
  const columns = 8;
  const out = Buffer.alloc(rows.length * (columns + 1));
  let previous = Buffer.alloc(columns);
  rows.forEach(([type, a, b], r) => {
    const row = Buffer.alloc(columns);
    row.writeUInt8(type, 0);
    row.writeUIntBE(a, 1, 5);
    row.writeUInt16BE(b, 6);
    // PNG "Up" predictor, as most writers use for xref streams.
    out[r * (columns + 1)] = 2;
    for (let c = 0; c < columns; c++) {
      out[r * (columns + 1) + 1 + c] = ((row[c] as number) - (previous[c] as number)) & 0xff;
    }
    previous = row;
  });
  return deflateSync(out);
}

export function buildPdf(options: PdfOptions): ByteWriter {
  const { pages, fanout = 10 } = options;
  const pdf = new PdfFile();
  const objects: PdfObject[] = [];
  let next = 4; // 1 catalog, 2 page-tree root, 3 font
  const pageNums: number[] = [];
  const rootKids: number[] = [];
  const groups = pages > fanout ? Math.ceil(pages / fanout) : 0;
  for (let g = 0; g < groups; g++) rootKids.push(next++);
  for (let p = 0; p < pages; p++) {
    const page = next++;
    const contents = next++;
    pageNums.push(page);
    const parent = groups > 0 ? (rootKids[Math.floor(p / fanout)] as number) : 2;
    if (groups === 0) rootKids.push(page);
    objects.push({
      num: page,
      body: `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} 0 R >>`,
    });
    objects.push({
      num: contents,
      body: '<< >>',
      stream: Buffer.from(`BT /F1 24 Tf 72 700 Td (Page ${p + 1}) Tj ET`),
    });
  }
  for (let g = 0; g < groups; g++) {
    const kids = pageNums.slice(g * fanout, (g + 1) * fanout);
    objects.push({
      num: rootKids[g] as number,
      body: `<< /Type /Pages /Parent 2 0 R /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`,
    });
  }
  const refs = (nums: number[]) => nums.map((k) => `${k} 0 R`).join(' ');
  objects.push({ num: 3, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' });
  objects.push({ num: 2, body: `<< /Type /Pages /Kids [${refs(rootKids)}] /Count ${pages} >>` });
  objects.push({ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' });

  const stream = options.xref === 'stream';
  pdf.writer.write(`%PDF-${stream ? '1.5' : '1.4'}\n%\xe2\xe3\xcf\xd3\n`);
  let linearization: Buffer | undefined;
  if (options.linearized) {
    const num = next++;
    linearization = Buffer.from(
      `${num} 0 obj\n<< /Linearized 1 /L 0000000000 /H [0 0] /O ${pageNums[0] ?? 0} /E 0 /N ${pages} /T 0 >>\nendobj\n`,
      'latin1',
    );
    pdf.offsets.set(num, pdf.writer.offset);
    pdf.writer.write(linearization);
  }
  if (options.padding) {
    const num = next++;
    pdf.offsets.set(num, pdf.writer.offset);
    pdf.writer.write(`${num} 0 obj\n<< /Length ${options.padding} >>\nstream\n`);
    pdf.writer.gap(options.padding).write('\nendstream\nendobj\n');
  }

  let startxref: number;
  if (!stream) {
    for (const object of objects) pdf.object(object);
    startxref = pdf.xrefTable([0, ...pdf.offsets.keys()], `<< /Size ${next} /Root 1 0 R >>`);
  } else {
    // Dictionaries go into one object stream; streams cannot, so contents stay plain objects.
    const packed = objects.filter((o) => !o.stream);
    for (const object of objects.filter((o) => o.stream)) pdf.object(object);
    const objStm = next++;
    let header = '';
    let body = '';
    for (const object of packed) {
      header += `${object.num} ${body.length} `;
      body += `${object.body}\n`;
    }
    pdf.object({
      num: objStm,
      body: `<< /Type /ObjStm /N ${packed.length} /First ${header.length} /Filter /FlateDecode >>`,
      stream: deflateSync(Buffer.from(header + body, 'latin1')),
      length: options.objectStreamLength,
    });
    const xrefNum = next++;
    const rows: [number, number, number][] = [];
    const packedIndex = new Map(packed.map((o, i) => [o.num, i]));
    for (let num = 0; num < next; num++) {
      const index = packedIndex.get(num) ?? -1;
      if (num === 0) rows.push([0, 0, 65535]);
      else if (num === xrefNum) rows.push([1, pdf.writer.offset, 0]);
      else if (index !== -1) rows.push([2, objStm, index]);
      else rows.push([1, pdf.offsets.get(num) ?? 0, 0]);
    }
    startxref = pdf.writer.offset;
    pdf.object({
      num: xrefNum,
      body: `<< /Type /XRef /Size ${next} /W [1 5 2] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 8 >> >>`,
      stream: xrefStreamData(rows),
    });
    pdf.writer.write(`startxref\n${startxref}\n%%EOF\n`);
  }

  if (options.updateAddsPages) {
    const added: number[] = [];
    const changed: number[] = [2];
    for (let p = 0; p < options.updateAddsPages; p++) {
      const page = next++;
      const contents = next++;
      added.push(page);
      changed.push(page, contents);
      pdf.object({
        num: page,
        body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contents} 0 R >>`,
      });
      pdf.object({ num: contents, body: '<< >>', stream: Buffer.from('BT ET') });
    }
    pdf.object({
      num: 2,
      body: `<< /Type /Pages /Kids [${refs([...rootKids, ...added])}] /Count ${pages + added.length} >>`,
    });
    pdf.xrefTable(changed, `<< /Size ${next} /Root 1 0 R /Prev ${startxref} >>`);
  }

  if (linearization) {
    const length = options.linearized === 'stale' ? pdf.writer.offset - 1 : pdf.writer.offset;
    const at = linearization.indexOf('/L ') + 3;
    linearization.write(String(length).padStart(10, '0'), at, 'latin1');
  }
  return pdf.writer;
}
