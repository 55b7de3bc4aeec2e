// Inspecting an upload must not stall the event loop, which every other request and stream of
// the process waits on. A 5 ms heartbeat runs while an extractor works on a crafted file; its
// longest gap is the stall. The tag patterns before backtracked: 0.6-2 s for a workbook of a few
// hundred bytes, now 1-5 ms. The stalls of inflating (inflateSync before: 80-160 ms for six XLSX
// deflate bombs at once, 95-158 ms for a chain of xref streams; now 7-31 ms) are too close to a
// loaded machine's noise for a unit test (one run here measured 100 ms for the PNG predictor under
// load): they belong to the ingest event-loop benchmark (issue 21), not here.

import { buildZip, type ZipInput } from '@ferry/test-helpers/build-xlsx';
import { describe, expect, it } from 'vitest';
import { infoOf } from './harness.js';

/** Far above the fixed code (1-5 ms) and far below the old (600-2000 ms), for a loaded CI machine. */
const MAX_STALL_MS = 250;

/** Runs `work` under a 5 ms heartbeat; the longest gap between beats (and up to the end). */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { result, stallMs };
  } finally {
    clearInterval(beat);
  }
}

const XLSX = {
  mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  name: 'crafted.xlsx',
};

const WORKBOOK = '<workbook><sheets><sheet name="A" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS =
  '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>';

describe('extractInfo keeps the event loop free', () => {
  // 20,000 unclosed tags: with `[^>]*>` each one rescanned the rest of the text.
  const unclosed = (start: string, unit: string) => start + unit.repeat(20_000);
  it.each([
    [
      '<dimension in a sheet',
      [{ name: 'xl/worksheets/sheet1.xml', data: unclosed('<worksheet>', '<dimension ') }],
    ],
    [
      '<row in a small sheet',
      [{ name: 'xl/worksheets/sheet1.xml', data: unclosed('<worksheet><sheetData>', '<row ') }],
    ],
    [
      '<sheet in the workbook',
      [
        { name: 'xl/workbook.xml', data: unclosed('<workbook><sheets>', '<sheet ') },
        { name: 'xl/_rels/workbook.xml.rels', data: RELS },
      ],
    ],
    [
      '<Relationship in its rels',
      [
        { name: 'xl/workbook.xml', data: WORKBOOK },
        { name: 'xl/_rels/workbook.xml.rels', data: unclosed('<Relationships>', '<Relationship ') },
      ],
    ],
  ] as [string, ZipInput[]][])(
    'while matching tags in XML made of unclosed %s tags',
    async (_label, parts) => {
      const bytes = buildZip(parts).toBuffer();
      const { result, stallMs } = await longestStall(() => infoOf(bytes, XLSX));
      // Nothing to count in any of them; only the time matters here.
      expect(result.info === null || result.info.rows === 0).toBe(true);
      expect(stallMs).toBeLessThan(MAX_STALL_MS);
    },
  );
});
