// A zip writer (local headers, central directory, ZIP64 when offsets pass 4 GiB or on request)
// and, on top of it, real SpreadsheetML workbooks as Excel lays them out: content types,
// relationships, workbook, one XML part per sheet with <dimension> before <sheetData>.

import { crc32, deflateRawSync } from 'node:zlib';
import { ByteWriter } from './byte-writer.js';

export interface ZipInput {
  name: string;
  data?: Uint8Array | string;
  /** A stored entry of this many zero bytes that is a gap in the file (for multi-GiB archives). */
  virtualSize?: number;
  /** @default 'deflate' */
  method?: 'deflate' | 'store';
}

const U32_MAX = 0xffffffff;

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(Math.min(n, U32_MAX));
  return b;
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

export function buildZip(inputs: ZipInput[], options: { zip64?: boolean } = {}): ByteWriter {
  const writer = new ByteWriter();
  const central: Buffer[] = [];
  for (const input of inputs) {
    const name = Buffer.from(input.name, 'utf8');
    const raw =
      typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : Buffer.from(input.data ?? []);
    const deflate = input.method !== 'store' && input.virtualSize === undefined;
    const stored = deflate ? deflateRawSync(raw) : raw;
    const size = input.virtualSize ?? raw.length;
    const compressedSize = input.virtualSize ?? stored.length;
    const crc = input.virtualSize === undefined ? crc32(raw) : 0;
    const offset = writer.offset;
    const method = deflate ? 8 : 0;
    writer.write(Buffer.concat([u32(0x04034b50), u16(45), u16(0x0800), u16(method), u32(0), u32(crc)]));
    writer.write(Buffer.concat([u32(compressedSize), u32(size), u16(name.length), u16(0), name]));
    if (input.virtualSize === undefined) writer.write(stored);
    else writer.gap(input.virtualSize);
    const big = options.zip64 || offset >= U32_MAX || size >= U32_MAX;
    // ZIP64 extra field: the 64-bit values whose 32-bit fields read 0xFFFFFFFF.
    const extra = big
      ? Buffer.concat([u16(1), u16(24), u64(size), u64(compressedSize), u64(offset)])
      : Buffer.alloc(0);
    central.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(45),
        u16(45),
        u16(0x0800),
        u16(method),
        u32(0),
        u32(crc),
        big ? u32(U32_MAX) : u32(compressedSize),
        big ? u32(U32_MAX) : u32(size),
        u16(name.length),
        u16(extra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        big ? u32(U32_MAX) : u32(offset),
        name,
        extra,
      ]),
    );
  }
  const directory = Buffer.concat(central);
  const directoryAt = writer.offset;
  writer.write(directory);
  const zip64 = options.zip64 || directoryAt >= U32_MAX;
  if (zip64) {
    const recordAt = writer.offset;
    writer.write(Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0)]));
    writer.write(
      Buffer.concat([u64(inputs.length), u64(inputs.length), u64(directory.length), u64(directoryAt)]),
    );
    writer.write(Buffer.concat([u32(0x07064b50), u32(0), u64(recordAt), u32(1)]));
  }
  const count = zip64 ? 0xffff : inputs.length;
  writer.write(
    Buffer.concat([
      u32(0x06054b50),
      u16(0),
      u16(0),
      u16(count),
      u16(count),
      u32(directory.length),
      zip64 ? u32(U32_MAX) : u32(directoryAt),
      u16(0),
    ]),
  );
  return writer;
}

export type Cell = string | number;

export interface SheetSpec {
  name: string;
  rows?: Cell[][];
  /** The <dimension ref>; computed from `rows` unless given; `false` leaves the element out. */
  dimension?: string | false;
  /** A chart sheet has no cells and must be skipped. */
  chart?: boolean;
}

export interface XlsxOptions {
  sheets: SheetSpec[];
  /** Tab order as indexes into `sheets` (part names keep `sheets` order). @default in order */
  order?: number[];
  /** Leaves these part names out of the archive. */
  omit?: string[];
  zip64?: boolean;
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sheetXml(sheet: SheetSpec): string {
  const rows = sheet.rows ?? [];
  const width = Math.max(0, ...rows.map((r) => r.length));
  const computed = rows.length === 0 ? 'A1' : `A1:${columnName(width - 1)}${rows.length}`;
  const dimension = sheet.dimension === false ? '' : `<dimension ref="${sheet.dimension ?? computed}"/>`;
  const data = rows
    .map((row, r) => {
      const cells = row
        .map((value, c) => {
          const ref = `${columnName(c)}${r + 1}`;
          return typeof value === 'number'
            ? `<c r="${ref}"><v>${value}</v></c>`
            : `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    `${dimension}<sheetViews><sheetView workbookViewId="0"/></sheetViews>` +
    `<sheetFormatPr defaultRowHeight="15"/>${rows.length === 0 ? '<sheetData/>' : `<sheetData>${data}</sheetData>`}` +
    '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>'
  );
}

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export function buildXlsx(options: XlsxOptions): ByteWriter {
  const { sheets } = options;
  const order = options.order ?? sheets.map((_, i) => i);
  const partOf = (sheet: SheetSpec, i: number) =>
    sheet.chart ? `chartsheets/sheet${i + 1}.xml` : `worksheets/sheet${i + 1}.xml`;
  const overrides = sheets
    .map((sheet, i) => {
      const type = sheet.chart ? 'chartsheet' : 'worksheet';
      return `<Override PartName="/xl/${partOf(sheet, i)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.${type}+xml"/>`;
    })
    .join('');
  const parts: ZipInput[] = [
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${overrides}</Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data:
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets>` +
        order
          .map(
            (i) =>
              `<sheet name="${escapeXml(sheets[i]?.name ?? '')}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`,
          )
          .join('') +
        '</sheets></workbook>',
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        sheets
          .map((sheet, i) => {
            const type = sheet.chart ? 'chartsheet' : 'worksheet';
            return `<Relationship Target="${partOf(sheet, i)}" Type="${REL}/${type}" Id="rId${i + 1}"/>`;
          })
          .join('') +
        '</Relationships>',
    },
    ...sheets.map((sheet, i) => ({
      name: `xl/${partOf(sheet, i)}`,
      data: sheet.chart
        ? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<chartsheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"/></sheetViews></chartsheet>'
        : sheetXml(sheet),
    })),
  ];
  const omit = new Set(options.omit ?? []);
  return buildZip(
    parts.filter((part) => !omit.has(part.name)),
    { zip64: options.zip64 },
  );
}
