// Finding encoded payloads (base64 data URIs, long base64 runs) in text a tool gave back, so the
// redactions for the model (the host's, packages/host/src/pipeline/redact-for-model.ts, and the
// agent's last pass, packages/agent/src/scrub.ts) can summarize them. Tool output is hostile
// input and may be tens of MiB, so both are linear scans rather than regular expressions: V8
// overflows its stack matching `[A-Za-z0-9+/]{512,}` against a 10 MiB run, and
// `data:[^,…]*;base64,` backtracks quadratically over text like `data:data:data:…`.

export interface Base64RunOptions {
  /** Shortest run (not counting the trailing `=`) that is replaced. */
  minLength: number;
  /** What a run (with up to two trailing `=`) becomes. */
  replace: (run: string) => string;
}

const SPACE = /\s/;

/**
 * Replaces each base64 data URI in `text` — `data:`, a media type of any characters but
 * `,` `"` `'` `<` `>` and white space, ending in `;base64` (any case), `,`, then a payload of
 * `A-Z a-z 0-9 + / = _ -` (possibly empty) — with `replace(uri)`. One pass, linear in `text`.
 */
export function replaceDataUris(text: string, replace: (uri: string) => string): string {
  if (!/data:/i.test(text)) return text;
  // A fresh expression per call: `replace` may itself scan, and lastIndex is state.
  const scheme = /data:/gi;
  let out = '';
  let copied = 0;
  for (let match = scheme.exec(text); match !== null; match = scheme.exec(text)) {
    const start = match.index;
    let comma = start + 5;
    while (comma < text.length && !endsMediaType(text.charCodeAt(comma))) comma++;
    // No `;base64,` right before the first comma: no data URI starts anywhere in this stretch
    // (every `data:` in it runs to the same comma).
    if (
      text.charCodeAt(comma) !== 44 ||
      text.slice(Math.max(start + 5, comma - 7), comma).toLowerCase() !== ';base64'
    ) {
      scheme.lastIndex = Math.max(comma, start + 1);
      continue;
    }
    let end = comma + 1;
    while (end < text.length && isBase64Char(text.charCodeAt(end), true)) end++;
    out += text.slice(copied, start) + replace(text.slice(start, end));
    copied = end;
    scheme.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Replaces each run of at least `minLength` base64 characters (`A-Z a-z 0-9 + /`, plus up to two
 * `=` after it) that looks encoded with `replace(run)`. Encoded bytes mix upper case, lower case
 * and digits; a long run lacking one of them (a DNA sequence, a hex digest, a word) is ordinary
 * data and stays. Runs are maximal: a longer run is never split. One pass, linear in `text`.
 */
export function replaceBase64Runs(text: string, options: Base64RunOptions): string {
  const { minLength, replace } = options;
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let lower = false;
    let upper = false;
    let digit = false;
    for (; i < text.length && isBase64Char(text.charCodeAt(i)); i++) {
      const code = text.charCodeAt(i);
      lower ||= code >= 97 && code <= 122;
      upper ||= code >= 65 && code <= 90;
      digit ||= code >= 48 && code <= 57;
    }
    if (i - start < minLength) continue;
    let end = i;
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
    if (lower && upper && digit) {
      out += text.slice(copied, start) + replace(text.slice(start, end));
      copied = end;
    }
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Characters that end a data URI's media type (as `[^,\s"'<>]` did). */
function endsMediaType(code: number): boolean {
  return code === 44 || code === 34 || code === 39 || code === 60 || code === 62 || isSpace(code);
}

/** What `\s` matches. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  return code >= 0xa0 && SPACE.test(String.fromCharCode(code));
}

/** `A-Z a-z 0-9 + /`, and with `urlSafe` also `= _ -` (what may follow `;base64,`). */
function isBase64Char(code: number, urlSafe = false): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    (urlSafe && (code === 61 || code === 95 || code === 45))
  );
}
