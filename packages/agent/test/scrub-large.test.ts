// The scrub runs on every string a tool gives back, and a result may be tens of MiB (up to the
// host's maxResultBytes, 64 MiB): it must finish in linear time on hostile text and never throw.
//
// Timing: these tests do not measure time. Their inputs are sized so that a quadratic scan (a
// regular expression retrying from every `http://`, say) would run for minutes to hours, while the
// linear scans take well under a second. A scan cannot be interrupted while it runs, so Vitest
// only notices a test over its timeout once it returns: the 20 s timeout is generous enough never
// to trip on a slow CI machine, and a quadratic regression shows as a test that hangs or fails on
// its timeout, never as a pass. A V8 regular expression that recurses per character throws
// RangeError on these sizes instead.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scrubText } from '../src/scrub.js';

const MIB = 1024 * 1024;
const TIMEOUT = 20_000;

describe('scrubText on large and hostile text', () => {
  it(
    'summarizes a 10 MiB base64 run (a regular expression overflows its stack on it)',
    () => {
      const run = randomBytes((10 * MIB * 3) / 4).toString('base64');
      expect(scrubText(`before ${run}== after`)).toBe(
        `before [base64, ${10 * MIB + 2} characters omitted] after`,
      );
    },
    TIMEOUT,
  );

  it(
    'judges the 260,000 runs of 10 MiB one by one: payloads summarized, named ids and words kept',
    () => {
      const payload = randomBytes(36).toString('base64');
      const words = 'QuarterlyReportForTheNorthRegionDraftVersion2024';
      const unit = `${payload} "UploadId": "${payload}" ${words}\n`;
      const count = Math.floor((10 * MIB) / unit.length);
      expect(scrubText(unit.repeat(count))).toBe(
        `[base64, 48 characters omitted] "UploadId": "${payload}" ${words}\n`.repeat(count),
      );
    },
    TIMEOUT,
  );

  it(
    'summarizes a 10 MiB data URI as the host does',
    () => {
      const payload = randomBytes((10 * MIB * 3) / 4).toString('base64');
      expect(scrubText(`<img src="data:image/png;base64,${payload}">`)).toBe(
        `<img src="data:image/png;base64,[${(10 * MIB * 3) / 4} bytes]">`,
      );
    },
    TIMEOUT,
  );

  it(
    "keeps 'data:' repeated 2 million times (10 MB) as it is",
    () => {
      const text = 'data:'.repeat(2_000_000);
      expect(scrubText(text)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    'keeps a data URI with 10 MiB of parameters and no base64 (a regular expression overflows its stack)',
    () => {
      const text = `data:text/plain${';x'.repeat(5 * MIB)},hello`;
      expect(scrubText(text)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    "keeps 'http://' repeated a million times (7 MB): every one starts a URL, none has a token",
    () => {
      const text = 'http://'.repeat(1_000_000);
      expect(scrubText(text)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    'keeps a 10 MiB URL without a token',
    () => {
      const text = `see https://example.com/${'a-'.repeat(5 * MIB)} ok`;
      expect(scrubText(text)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    'keeps a 10 MB chain of redirect URLs without a token',
    () => {
      const text = `https://example.com/${'?next=https://example.com/'.repeat(400_000)}`;
      expect(scrubText(text)).toBe(text);
    },
    TIMEOUT,
  );

  it(
    'omits a 10 MiB URL whose token or file API path comes last',
    () => {
      const path = 'a/'.repeat(5 * MIB);
      expect(scrubText(`get https://files.example/${path}?token=abc end`)).toBe('get [link omitted] end');
      expect(scrubText(`get http://127.0.0.1:8787/${path}/api/files/1 end`)).toBe('get [link omitted] end');
    },
    TIMEOUT,
  );

  it(
    'blanks a 10 MiB bearer token and token parameter (a regular expression overflows its stack)',
    () => {
      const token = 'a'.repeat(10 * MIB);
      expect(scrubText(`auth Bearer ${token}== end`)).toBe('auth Bearer [redacted] end');
      expect(scrubText(`q ?token=${token}&x=1`)).toBe('q ?token=[redacted]&x=1');
    },
    TIMEOUT,
  );

  it(
    'reduces a 10 MiB workspace path to its last segment',
    () => {
      const text = `wrote /tmp/alice/${'sub-dir/'.repeat(MIB)}report.html and /srv/ferry/data/${'e-'.repeat(5 * MIB)}/f`;
      expect(scrubText(text, { username: 'alice', hostPaths: ['/srv/ferry/data'] })).toBe(
        'wrote report.html and f',
      );
    },
    TIMEOUT,
  );
});
