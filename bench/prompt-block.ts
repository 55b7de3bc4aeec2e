// Prompt-file-block benchmark: the `[SYSTEM: Available files …]` block (packages/agent
// file-block.ts) built for one user who has FERRY_BENCH_FILES files (default 10,000) in the
// embedded catalog (SQLite on disk, rows written through the catalog's own insertPending +
// finalize, as every upload does). Names, kinds, sizes and dates vary; some names have several
// versions, some files are session-only, deferred or already expired, most carry file info.
// The block is built FERRY_BENCH_RUNS times (default 50) after a warm-up, each time after a write
// to the catalog (so nothing the catalog keeps between two identical reads is reused); the median
// and p95 are compared with the target: < 50 ms for 10,000 files. Also reported: the same with no
// write in between, and a user with 50 files in the same run (the small-library baseline).
// Prints one JSON document; pass/fail is reported, not asserted.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { buildFileBlock } from '@ferry/agent';
import type { FileSource } from '@ferry/contract';
import { type Catalog, createSqliteCatalog } from '@ferry/storage';
import {
  benchCommand,
  benchScratch,
  failBench,
  machineReport,
  median,
  percentile,
  round,
  timed,
} from './_measure.js';

const BENCH = 'prompt-block';
const FILES = Number(process.env.FERRY_BENCH_FILES ?? 10_000);
const RUNS = Number(process.env.FERRY_BENCH_RUNS ?? 50);
const WARMUP = 5;
const TARGET_MS = 50;
const command = benchCommand(BENCH, ['FERRY_BENCH_FILES', 'FERRY_BENCH_RUNS']);
const fail = (error: unknown): never => failBench(BENCH, command, error);

const KINDS = [
  { ext: 'csv', mime: 'text/csv', info: (i: number) => ({ rows: 1000 + i * 7, columns: 3 + (i % 20) }) },
  {
    ext: 'png',
    mime: 'image/png',
    info: (i: number) => ({ width: 64 + (i % 1900), height: 48 + (i % 1000) }),
  },
  { ext: 'pdf', mime: 'application/pdf', info: (i: number) => ({ pages: 1 + (i % 300) }) },
  {
    ext: 'xlsx',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    info: () => null,
  },
  { ext: 'md', mime: 'text/markdown', info: () => null },
  { ext: 'html', mime: 'text/html', info: () => null },
] as const;
const WORDS = ['sales', 'report', 'Quarterly', 'customer_segments', 'chart', 'draft', 'données', 'résumé'];

/** A clock the seeding advances one minute per row, so created_at varies over about a week per 10,000. */
function steppedClock(start: number) {
  let at = start;
  return { now: () => new Date(at), step: () => (at += 60_000) };
}

async function seed(catalog: Catalog, step: () => void, owner: string, count: number): Promise<void> {
  const day = 86_400_000;
  for (let i = 0; i < count; i++) {
    // Every 10th name comes back later as a new version: the listing must hide the older ones.
    const n = i % 10 === 9 ? i - 9 : i;
    const kind = KINDS[n % KINDS.length] as (typeof KINDS)[number];
    const name = `${WORDS[n % WORDS.length]}-${String(n).padStart(6, '0')}.${kind.ext}`;
    const source: FileSource = i % 13 === 0 ? 'deferred' : i % 3 === 0 ? 'generated' : 'uploaded';
    const pending = await catalog.insertPending({
      owner,
      name,
      mime: kind.mime,
      source,
      description: source === 'deferred' ? 'Draft, to complete' : null,
      // Some session-only files, and a few that have already expired (the block must not list them).
      persist: i % 7 !== 0,
      sessionId: i % 7 === 0 ? 'session-1' : null,
      expiresAt:
        i % 101 === 0
          ? new Date(Date.UTC(2026, 0, 1))
          : source === 'deferred'
            ? new Date(Date.now() + 3 * day)
            : null,
    });
    const info = kind.info(i);
    await catalog.finalize(owner, pending.id, {
      // From a few bytes to a few GB.
      size: Math.floor(10 ** (1 + (i % 9)) * (1 + (i % 7) / 7)),
      sha256: (i.toString(16).padStart(8, '0') as string).repeat(8),
      info: source === 'deferred' ? { deferredReason: 'needs_editing', nextActions: ['edit'] } : info,
    });
    step();
  }
}

/**
 * Times the block `RUNS` times. `cold`: a write to the catalog (a new user row, untimed) comes
 * before each build, as an upload or a stored tool output does between two chat turns, so no
 * answer the catalog may keep from the run before is reused. Warm: the same block asked again
 * with nothing written in between.
 */
async function timeBlock(catalog: Catalog, owner: string, cold: boolean) {
  let block = '';
  let writes = 0;
  const build = async () => {
    block = await buildFileBlock(catalog, owner);
  };
  const touch = async () => {
    if (cold) await catalog.ensureUser(`bench-touch-${owner.slice(0, 8)}-${writes++}`);
  };
  for (let i = 0; i < WARMUP; i++) {
    await touch();
    await build();
  }
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await touch();
    times.push(await timed(build));
  }
  const lines = block.split('\n');
  return {
    times,
    summary: {
      median_ms: round(median(times), 3),
      p95_ms: round(percentile(times, 95), 3),
      max_ms: round(Math.max(...times), 3),
      block_chars: block.length,
      block_lines: lines.length,
      more_line: lines.at(-2)?.startsWith('- …and ') ? lines.at(-2) : null,
    },
  };
}

const loadAtStart = loadavg()[0] ?? 0;
const { dir, deadline } = await benchScratch('ferry-bench-prompt-block-', fail);
try {
  const clock = steppedClock(Date.UTC(2026, 5, 1));
  const catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db'), now: clock.now });
  const big = await catalog.ensureUser('bench-large');
  const small = await catalog.ensureUser('bench-small');
  const seedMs = await timed(() => seed(catalog, clock.step, big, FILES));
  await seed(catalog, clock.step, small, 50);

  const large = await timeBlock(catalog, big, true);
  const largeWarm = await timeBlock(catalog, big, false);
  const baseline = await timeBlock(catalog, small, true);
  await catalog.close();

  const p95 = percentile(large.times, 95);
  const med = median(large.times);
  console.log(
    JSON.stringify({
      bench: BENCH,
      command,
      files: FILES,
      runs: RUNS,
      catalog: 'sqlite (embedded default), on disk',
      seed_ms: round(seedMs),
      // After a write (what a chat turn meets): the target applies to this one.
      large_library: large.summary,
      // Asked again with no write in between.
      large_library_unchanged: largeWarm.summary,
      baseline_50_files: baseline.summary,
      machine: machineReport(loadAtStart),
      target: { median_ms_below: TARGET_MS, p95_ms_below: TARGET_MS },
      pass: med < TARGET_MS && p95 < TARGET_MS,
    }),
  );
} catch (error) {
  fail(error);
} finally {
  clearTimeout(deadline);
}
