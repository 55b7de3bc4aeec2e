// Ingest benchmark (issue 21): Ferry's event-loop lag while 20 hostile files (XLSX deflate bombs,
// XLSX with thousands of unclosed tags, PDFs with a /Prev chain of xref streams each inflating to
// 16 MiB, PNG/GIF headers claiming huge dimensions) and one large upload are ingested at once
// through the HTTP API. Ferry runs in a child process (`ferry start`, local disk + SQLite in a temp
// directory); perf_hooks.monitorEventLoopDelay (resolution 1 ms) runs inside it, loaded with
// --import from a data: URL, and writes its histogram to a file on SIGUSR2 (then resets), so each
// phase is measured alone. Baseline row: the same lag while only the large upload runs. Every file
// must be stored: GET /api/files must list all 21 with their sizes. Target: p99 <= 20 ms while
// ingesting (printed as pass/fail). Size of the large upload: BENCH_INGEST_BYTES (default 1 GiB),
// streamed from a generator. Prints one JSON document.
import { createCipheriv } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32, deflateSync } from 'node:zlib';
import { gif } from '@ferry/test-helpers/build-images';
import { buildZip } from '@ferry/test-helpers/build-xlsx';
import {
  benchCommand,
  benchScratch,
  deleteFile,
  endBench,
  type FerryProcess,
  failBench,
  MIB,
  machineReport,
  median,
  round,
  startFerryProcess,
  timed,
} from './_measure.js';

const SIZE = Number(process.env.BENCH_INGEST_BYTES ?? 1024 * MIB);
/** The whole benchmark, cleanup included, must end within this. @default 1800 s */
const TARGET = { lag_p99_ms: 20 };

// Used by the builders below, which run from the top-level code before their own lines.
const SHEET_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1"/>';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const SPREADSHEET = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

if (!(SIZE > 0)) fail(new Error(`bad BENCH_INGEST_BYTES (${process.env.BENCH_INGEST_BYTES})`));

/** Other work on the machine skews every timing here; reported next to them. */
const loadAtStart = loadavg()[0] ?? 0;
const { dir, deadline } = await benchScratch('ferry-bench-ingest-', fail);
const lagFile = join(dir, 'lag.json');
let ferry: FerryProcess | undefined;

/**
 * Loaded into the server with --import: the histogram lives in Ferry's own process. On SIGUSR2 it
 * writes {seq, p50, p99, max, ...} (ms) to BENCH_INGEST_LAG_FILE and starts over.
 */
const LAG_MONITOR = `
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
let seq = 0;
process.on('SIGUSR2', () => {
  seq += 1;
  const ms = (ns) => ns / 1e6;
  writeFileSync(process.env.BENCH_INGEST_LAG_FILE, JSON.stringify({
    seq, count: h.count, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean),
  }));
  h.reset();
});
`;

try {
  process.env.BENCH_INGEST_LAG_FILE = lagFile;
  ferry = await startFerryProcess({
    dir,
    config: { servers: {}, storage: { dataDir: join(dir, 'ferry') } },
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(LAG_MONITOR)}`],
  });
  const url = ferry.url;
  const lag = lagReader(ferry.pid);

  const hostile = buildHostileFiles();

  // Warm-up through the same routes, so lazy initialisation is not counted as lag.
  const warm = await upload(url, 'warm.bin', Readable.from([Buffer.alloc(MIB, 1)]), MIB);
  await deleteFile(url, warm.id);
  await listFiles(url);

  // Baseline: the large upload alone.
  await lag.read();
  const baselineMs = await timed(() => upload(url, 'baseline.bin', largeBody(SIZE, 11), SIZE));
  const baselineLag = await lag.read();
  const baselineFile = (await listFiles(url)).find((f) => f.name === 'baseline.bin');
  if (baselineFile?.size !== SIZE) throw new Error(`baseline upload stored ${baselineFile?.size} bytes`);
  await deleteFile(url, baselineFile.id);

  // Everything at once: the large upload and the 20 hostile files.
  await lag.read();
  const started = process.hrtime.bigint();
  const sinceStart = () => Number(process.hrtime.bigint() - started) / 1e6;
  const [large, ...results] = await Promise.all([
    upload(url, 'large.bin', largeBody(SIZE, 13), SIZE).then((file) => ({ file, ms: sinceStart() })),
    ...hostile.map((h) =>
      upload(url, h.name, Readable.from([h.bytes]), h.bytes.length).then((file) => ({
        file,
        ms: sinceStart(),
      })),
    ),
  ]);
  const totalMs = sinceStart();
  const ingestLag = await lag.read();

  // Every file still stored, with its size.
  const listed = new Map((await listFiles(url)).map((f) => [f.id, f]));
  const expected = [
    { id: large.file.id, name: 'large.bin', size: SIZE },
    ...hostile.map((h, i) => ({ id: results[i]?.file.id ?? '', name: h.name, size: h.bytes.length })),
  ];
  const missing = expected.filter((e) => listed.get(e.id)?.size !== e.size).map((e) => e.name);

  const kinds = [...new Set(hostile.map((h) => h.kind))].map((kind) => {
    const of = hostile.flatMap((h, i) => (h.kind === kind ? [{ h, r: results[i] }] : []));
    return {
      kind,
      files: of.length,
      stored: of.filter(({ r }) => r && listed.get(r.file.id)?.size === r.file.size).length,
      bytes_each: of.map(({ h }) => h.bytes.length),
      claims: of.map(({ h }) => h.claims),
      upload_ms_median: round(median(of.map(({ r }) => r?.ms ?? 0)), 1),
      upload_ms_max: round(Math.max(...of.map(({ r }) => r?.ms ?? 0)), 1),
      mime: [...new Set(of.map(({ r }) => r?.file.mime))],
      // What ingest made of them (distinct values), e.g. {} or {"width":...}.
      info: [...new Set(of.map(({ r }) => JSON.stringify(r?.file.info ?? null)))].map((s) => JSON.parse(s)),
    };
  });
  const lagRow = (l: LagStats) => ({
    p50_ms: round(l.p50, 2),
    p99_ms: round(l.p99, 2),
    max_ms: round(l.max, 2),
    mean_ms: round(l.mean, 2),
    samples: l.count,
  });
  const pass = ingestLag.p99 <= TARGET.lag_p99_ms && missing.length === 0;
  console.log(
    JSON.stringify({
      bench: 'ingest',
      command: command(),
      large_upload_bytes: SIZE,
      hostile_files: hostile.length,
      baseline: { what: 'large upload alone', ...lagRow(baselineLag), total_s: round(baselineMs / 1000, 3) },
      ingest: {
        what: 'large upload + 20 hostile files at once',
        ...lagRow(ingestLag),
        total_s: round(totalMs / 1000, 3),
        large_upload_s: round(large.ms / 1000, 3),
      },
      added_lag_ms: {
        p50: round(ingestLag.p50 - baselineLag.p50, 2),
        p99: round(ingestLag.p99 - baselineLag.p99, 2),
        max: round(ingestLag.max - baselineLag.max, 2),
      },
      kinds,
      all_stored: missing.length === 0,
      stored: expected.length - missing.length,
      missing,
      machine: machineReport(loadAtStart),
      target: TARGET,
      pass_lag: ingestLag.p99 <= TARGET.lag_p99_ms,
      pass,
    }),
  );
} catch (error) {
  fail(error);
} finally {
  await endBench(deadline, ferry, dir);
}

interface LagStats {
  seq: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Each read() signals the server and waits for its histogram since the last read (then reset). */
function lagReader(pid: number): { read(): Promise<LagStats> } {
  let seq = 0;
  return {
    async read() {
      seq += 1;
      process.kill(pid, 'SIGUSR2');
      for (const until = Date.now() + 10_000; Date.now() < until; await sleep(10)) {
        // Not there yet, or caught half-written (the server truncates, then writes): read again.
        const stats = await readFile(lagFile, 'utf8')
          .then((text) => JSON.parse(text) as LagStats)
          .catch(() => undefined);
        if (stats && stats.seq >= seq) return stats;
      }
      throw new Error('the server did not write its event-loop histogram within 10 s');
    },
  };
}

interface HostileFile {
  kind: string;
  name: string;
  bytes: Buffer;
  /** What the file claims or inflates to. */
  claims: Record<string, number>;
}

/** The 20 hostile files, built small (KiBs to a few MiB) but inflating or claiming far more. */
function buildHostileFiles(): HostileFile[] {
  const files: HostileFile[] = [];
  for (let i = 0; i < 5; i++) {
    const spaces = (32 + 8 * i) * MIB;
    const sheet = `${SHEET_HEAD}<sheetData><row r="1"><c r="A1"><v>1</v></c>${' '.repeat(spaces)}</row></sheetData></worksheet>`;
    files.push({
      kind: 'xlsx-deflate-bomb',
      name: `bomb-${i}.xlsx`,
      bytes: xlsx(sheet),
      claims: { sheet_xml_bytes: sheet.length },
    });
  }
  for (let i = 0; i < 5; i++) {
    const tags = 20_000 * (i + 1);
    const sheet = `${SHEET_HEAD}<sheetData>${'<row r="1"><c r="A1" t="inlineStr"><is><t>'.repeat(tags)}`;
    files.push({
      kind: 'xlsx-unclosed-tags',
      name: `unclosed-${i}.xlsx`,
      bytes: xlsx(sheet),
      claims: { unclosed_tags: tags * 4 + 2 },
    });
  }
  const inflated = Buffer.alloc(16 * MIB);
  const deflated = deflateSync(inflated);
  for (let i = 0; i < 5; i++) {
    const chain = 4 + 2 * i;
    files.push({
      kind: 'pdf-xref-chain',
      name: `xref-chain-${i}.pdf`,
      bytes: xrefChainPdf(chain, deflated, inflated.length),
      claims: { xref_streams: chain, inflated_bytes_each: inflated.length },
    });
  }
  for (let i = 0; i < 3; i++) {
    const side = 100_000 * (i + 1);
    files.push({
      kind: 'png-huge-dimensions',
      name: `huge-${i}.png`,
      bytes: hugePng(side, side),
      claims: { width: side, height: side },
    });
  }
  for (let i = 0; i < 2; i++) {
    files.push({
      kind: 'gif-huge-dimensions',
      name: `huge-${i}.gif`,
      bytes: gif(65_535, 65_535 - i),
      claims: { width: 65_535, height: 65_535 - i },
    });
  }
  return files;
}

/** A one-sheet workbook whose sheet part is `sheet` as given (the test builder only writes valid XML). */
function xlsx(sheet: string): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${SPREADSHEET}.sheet.main+xml"/>` +
        `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${SPREADSHEET}.worksheet+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="worksheets/sheet1.xml" Type="${REL}/worksheet" Id="rId1"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheet },
  ]).toBuffer();
}

/**
 * A one-page PDF whose trailer is a chain of `chain` xref streams linked by /Prev, each a deflated
 * stream of `inflatedBytes` zero bytes (free entries of /W [1 5 2]).
 */
function xrefChainPdf(chain: number, deflated: Buffer, inflatedBytes: number): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const write = (data: string | Buffer) => {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    parts.push(bytes);
    offset += bytes.length;
  };
  write('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  write('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n');
  write('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n');
  write('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n');
  const size = inflatedBytes / 8;
  let previous: number | undefined;
  for (let k = 0; k < chain; k++) {
    const at = offset;
    const prev = previous === undefined ? '' : ` /Prev ${previous}`;
    write(
      `${4 + k} 0 obj\n<< /Type /XRef /Size ${size} /W [1 5 2] /Root 1 0 R${prev} /Filter /FlateDecode /Length ${deflated.length} >>\nstream\n`,
    );
    write(deflated);
    write('\nendstream\nendobj\n');
    previous = at;
  }
  write(`startxref\n${previous}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A PNG whose IHDR claims width x height (RGBA) but whose IDAT holds one short scanline. */
function hugePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1 + 4 * 1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `size` incompressible bytes (AES-CTR keystream, distinct per `seed`), 1 MiB at a time. */
function largeBody(size: number, seed: number): Readable {
  const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, seed), Buffer.alloc(16));
  const zeros = Buffer.alloc(Math.min(MIB, size));
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= zeros.length)
        yield cipher.update(left >= zeros.length ? zeros : zeros.subarray(0, left));
    })(),
  );
}

interface FileRow {
  id: string;
  name: string;
  size: number;
  mime: string;
  info: Record<string, unknown> | null;
}

/** POSTs `body` raw as /api/files?name=...; resolves with the stored file. */
function upload(url: string, name: string, body: Readable, size: number): Promise<FileRow> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(`/api/files?name=${encodeURIComponent(name)}`, url),
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      },
      (res) =>
        answerOf<{ files: FileRow[] }>(res, 201, `upload of ${name}`).then((answer) => {
          const file = answer.files[0];
          if (!file) throw new Error(`upload of ${name} answered without a file`);
          resolve(file);
        }, reject),
    );
    req.on('error', reject);
    pipeline(body, req).catch(reject);
  });
}

/** The JSON body of `res`, which must have `status`; `what` names the request in errors. */
function answerOf<T>(res: IncomingMessage, status: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (res.statusCode !== status) reject(new Error(`${what} answered ${res.statusCode}: ${text}`));
      else resolve(JSON.parse(text) as T);
    });
  });
}

function listFiles(url: string): Promise<FileRow[]> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/files?limit=1000', url), (res) => {
      answerOf<{ items: FileRow[] }>(res, 200, 'GET /api/files').then(
        (answer) => resolve(answer.items),
        reject,
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function command(): string {
  return benchCommand('ingest', ['BENCH_INGEST_BYTES', 'BENCH_TIMEOUT_S']);
}

/** One JSON document with the reason, so scripts/bench.mjs reports it; then cleanup and exit 1. */
function fail(error: unknown): never {
  return failBench('ingest', command(), error, ferry);
}
