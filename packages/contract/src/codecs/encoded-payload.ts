// Whether a run of base64 characters in a tool's output is an encoded payload: bytes the model could
// only retype, which the redactions for the model summarize (scan-encoded.ts finds the runs and
// knows their surroundings). Judged by what the run holds, not by its length alone:
//
// - From 16 characters, a run that decodes to the start of a file format (PNG, JPEG, PDF, zip,
//   gzip, …) is a file.
// - From 48 characters (36 bytes), a run that reads like base64 of binary is a payload: it mixes
//   both cases, holds no words, and (under 200 characters) does not decode to text.
// - From 200 characters the text and reference exceptions below end: base64 of a CSV is a file.
//
// Left alone, and why (test/encoded-payload-corpus.ts holds the corpus):
// - Hex digests, git SHAs, UUIDs, base32, single-case words and paths: encoded binary has both
//   cases. Named base64 digests (`sha512-…`, Subresource Integrity and npm lockfiles) are hashes too.
// - Runs under 48 characters: ids, short tokens, base64 digests up to SHA-256 (44 characters) and
//   256-bit keys are values a model may need to quote; 36 bytes of binary cost it little.
// - Numbers, alphabets, patterns: runs half digits (SVG path data `M680-80v-120H560…`), counting
//   up (`abc…xyzABC…XYZ0123456789+/`, as encoders spell theirs out) or of fewer than 16 different
//   characters (DNA, a repeated word).
// - Identifiers, paths, names (`getUserProfileImageUrl`, `/Users/Alice/Report2024/final`): a run
//   whose letters follow English frequencies and change case at word boundaries reads as words.
//   This is a likelihood-ratio test of an identifier model against 64 characters drawn uniformly,
//   as base64 of binary is: random base64 averages -1.5 bits a character (of a million 48-character
//   samples none reached 0.15), identifiers and paths score +0.5 and more; words start at +0.25.
// - Base64 of text under 200 characters: GraphQL node ids and pagination cursors
//   (`eyJpZCI6MTIzfQ==`) are handed back to the next call.
// - References under 200 characters: parts of URLs, and values named as ids, tokens or cursors
//   (`"UploadId": "…"`, `nextPageToken=…`), which the model hands to the next call whatever they
//   hold. JWTs, with parts up to 8 KiB. Both are found by scan-encoded.ts, which sees around runs.
// - API keys get no exception: a key's random body (`sk-…`) is random bytes by content. Under 48
//   characters it stays like any id; longer, it is summarized. The model never needs to retype a
//   credential (tools get theirs from their configuration), and one it echoes reaches the model
//   provider.
//   This is not a secret detector: the agent's scrub redacts known secrets, `Bearer` and `token=`.
// Every check is one pass over the run or a bounded prefix of it: linear in the text scanned.

/** From this length a run that decodes to a file signature is a payload. */
const MIN_SIGNATURE_RUN = 16;
/** From this length a run that reads as base64 of binary is a payload. */
export const MIN_PAYLOAD_RUN = 48;
/** From this length neither decoding to text nor being a reference keeps a run. */
export const MAX_TEXT_RUN = 200;

/** Mean bits a character above which a run reads as words (see BITS). */
const WORD_BITS = 0.25;
/** Fewer different characters than this make a run a pattern, not base64 of binary. */
const MIN_DISTINCT = 16;
/** Share of decoded bytes that must be text for a run to be base64 of text. */
const TEXT_SHARE = 0.9;

const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const SYMBOL = 3;

/** Letter frequencies of English text, per mille, a to z. */
const LETTER_PER_MILLE = [
  82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1,
];
/**
 * The identifier model: how likely each class follows each class (rows: the previous character,
 * or SYMBOL at the start; columns: lower case, upper case, digit, one of `+ / - _`). Words run on
 * in lower case, a capital starts one, digits come in groups.
 */
const NEXT_CLASS = [
  [0.88, 0.06, 0.02, 0.04],
  [0.65, 0.3, 0.03, 0.02],
  [0.1, 0.1, 0.7, 0.1],
  [0.55, 0.25, 0.15, 0.05],
];

/**
 * BITS[previous class * 128 + code]: log2 of the character's probability under the identifier
 * model minus log2 of 1/64, its probability as a character of random base64.
 */
const BITS = new Float64Array(4 * 128);
const LETTER_TOTAL = LETTER_PER_MILLE.reduce((sum, n) => sum + n, 0);
for (let code = 0; code < 128; code++) {
  const kind = classOf(code);
  if (kind === undefined) continue;
  const within =
    kind === LOWER
      ? (LETTER_PER_MILLE[code - 97] as number) / LETTER_TOTAL
      : kind === UPPER
        ? (LETTER_PER_MILLE[code - 65] as number) / LETTER_TOTAL
        : kind === DIGIT
          ? 1 / 10
          : 1 / 4;
  for (let previous = 0; previous < 4; previous++) {
    BITS[previous * 128 + code] = Math.log2((NEXT_CLASS[previous]?.[kind] as number) * within) + 6;
  }
}

/** Base64 (both alphabets) character → its 6 bits. */
const SEXTET = new Int8Array(128).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
for (let i = 0; i < 64; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;
SEXTET[45] = 62; // -
SEXTET[95] = 63; // _

/** Starts of file formats: magic numbers a payload's first bytes would show. */
const SIGNATURES: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF8
  [0x25, 0x50, 0x44, 0x46, 0x2d], // %PDF-
  [0x50, 0x4b, 0x03, 0x04], // zip (docx, xlsx, jar, epub)
  [0x1f, 0x8b, 0x08], // gzip
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP, WAV, AVI)
  [0x42, 0x5a, 0x68], // bzip2
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], // 7z
  [0x4f, 0x67, 0x67, 0x53], // Ogg
  [0x66, 0x4c, 0x61, 0x43], // FLAC
  [0x49, 0x44, 0x33], // MP3 with ID3
  [0x1a, 0x45, 0xdf, 0xa3], // Matroska, WebM
  [0x49, 0x49, 0x2a, 0x00], // TIFF, little-endian
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF, big-endian
  // `wOFF` and `wOF2` whole: `wOF` alone is the start of text too (base64 of "wOFaa…" is no font).
  [0x77, 0x4f, 0x46, 0x46], // WOFF
  [0x77, 0x4f, 0x46, 0x32], // WOFF2
  [0x00, 0x61, 0x73, 0x6d], // WebAssembly
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], // OLE2 (doc, xls, msi)
];
/** ISO base media files (MP4, MOV, HEIC, AVIF) say `ftyp` at byte 4. */
const FTYP = [0x66, 0x74, 0x79, 0x70];
/**
 * Named digests (Subresource Integrity, npm's `integrity`): the algorithm, `-`, then the digest in
 * base64 of exactly this many characters before its `=`. A hash, however long, as hex ones are.
 */
const NAMED_DIGESTS: readonly (readonly [string, number])[] = [
  ['sha1-', 27],
  ['sha256-', 43],
  ['sha384-', 64],
  ['sha512-', 86],
];

/**
 * Whether `text[start, end)`, a run of base64 characters of either alphabet without its `=`
 * padding, is an encoded payload. `reference`: the run is part of a URL or a value named as an id
 * (scan-encoded.ts). One pass over the run.
 */
export function isEncodedPayload(text: string, start: number, end: number, reference: boolean): boolean {
  const length = end - start;
  if (length < MIN_SIGNATURE_RUN) return false;
  let lower = false;
  let upper = false;
  let bits = 0;
  let digits = 0;
  let steps = 0;
  let previous = SYMBOL;
  let last = -1;
  /** Which of the 128 ASCII codes occur, 32 to a word. */
  const seen = [0, 0, 0, 0];
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    const kind = classOf(code) ?? SYMBOL;
    lower ||= kind === LOWER;
    upper ||= kind === UPPER;
    if (kind === DIGIT) digits++;
    if (code === last + 1) steps++;
    seen[code >> 5] = (seen[code >> 5] as number) | (1 << (code & 31));
    bits += BITS[previous * 128 + code] as number;
    previous = kind;
    last = code;
  }
  if (!(lower && upper) || isNamedDigest(text, start, end)) return false;
  if (startsWithSignature(decode(text, start, end, 12))) return true;
  if (length < MIN_PAYLOAD_RUN || bits > WORD_BITS * length) return false;
  // Half digits: numbers (SVG path data, timestamps); half steps up by one: an alphabet written
  // out in code; few characters: a pattern (DNA, a repeated word). Base64 of binary has a digit in
  // 6.4 characters, a step in 64, and 48 of its characters hold 23 different ones or more (in a
  // million samples).
  if (2 * digits >= length || 2 * steps >= length || distinct(seen) < MIN_DISTINCT) return false;
  if (length >= MAX_TEXT_RUN) return true;
  return !reference && !isText(decode(text, start, end, (MAX_TEXT_RUN * 3) / 4));
}

function distinct(seen: readonly number[]): number {
  let count = 0;
  for (let word of seen) {
    for (; word !== 0; word &= word - 1) count++;
  }
  return count;
}

function classOf(code: number): number | undefined {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 43 || code === 47 || code === 45 || code === 95) return SYMBOL;
  return undefined;
}

/** The first `limit` bytes (at most) `text[start, end)` decodes to; a final partial byte is dropped. */
function decode(text: string, start: number, end: number, limit: number): Uint8Array {
  const bytes = new Uint8Array(Math.min(limit, Math.floor(((end - start) * 3) / 4)));
  let buffer = 0;
  let held = 0;
  let count = 0;
  for (let i = start; i < end && count < bytes.length; i++) {
    buffer = ((buffer << 6) | (SEXTET[text.charCodeAt(i)] as number)) & 0xffffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      bytes[count++] = (buffer >> held) & 0xff;
    }
  }
  return bytes;
}

function isNamedDigest(text: string, start: number, end: number): boolean {
  return NAMED_DIGESTS.some(
    ([name, length]) => end - start === name.length + length && text.startsWith(name, start),
  );
}

function startsWithSignature(bytes: Uint8Array): boolean {
  const startsWith = (signature: readonly number[], at: number) =>
    bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);
  return SIGNATURES.some((signature) => startsWith(signature, 0)) || startsWith(FTYP, 4);
}

/**
 * Whether at least TEXT_SHARE of `bytes` are text: printable ASCII, tab, line breaks and whole
 * UTF-8 characters (one cut by the end of the run counts).
 */
function isText(bytes: Uint8Array): boolean {
  let textual = 0;
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i] as number;
    if ((byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13) {
      textual++;
      i++;
      continue;
    }
    const following =
      byte >= 0xc2 && byte <= 0xdf
        ? 1
        : byte >= 0xe0 && byte <= 0xef
          ? 2
          : byte >= 0xf0 && byte <= 0xf4
            ? 3
            : 0;
    let j = 1;
    while (j <= following && i + j < bytes.length && ((bytes[i + j] as number) & 0xc0) === 0x80) j++;
    if (following > 0 && (j === following + 1 || i + j === bytes.length)) {
      textual += j;
      i += j;
    } else {
      i++;
    }
  }
  return textual >= TEXT_SHARE * bytes.length;
}
