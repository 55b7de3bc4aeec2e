// The corpus the model-facing base64 rule is held to (src/codecs/encoded-payload.ts and
// scan-encoded.ts): text it must leave exactly as it is, and payloads it must summarize. Random
// bytes come from a hash chain, so every run sees the same corpus.
import { createHash } from 'node:crypto';

/** `length` bytes that look random, the same for the same seed. */
export function seededBytes(seed: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  let block = Buffer.from(seed);
  for (let have = 0; have < length; have += 64) {
    block = createHash('sha512').update(block).digest();
    blocks.push(block);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const b64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');
const hex = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');
const digest64 = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('base64');
/** Letters and digits only, as API keys and opaque ids are drawn. */
const alphanumeric = (seed: string, length: number) =>
  [...seededBytes(seed, length)]
    .map((byte) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[byte % 62])
    .join('');

const jwt = (header: object, claims: object, signatureBytes: number) =>
  [
    b64url(JSON.stringify(header)),
    b64url(JSON.stringify(claims)),
    b64url(seededBytes('sig', signatureBytes)),
  ].join('.');
const HS256_JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const RS256_JWT = jwt(
  { alg: 'RS256', typ: 'JWT', kid: 'ferry-2026-01' },
  {
    iss: 'https://login.example.com/',
    sub: 'auth0|64f1c2a9b8e7d6c5b4a39281',
    aud: ['https://api.example.com', 'https://example.eu.auth0.com/userinfo'],
    iat: 1767225600,
    exp: 1767312000,
    scope: 'openid profile email read:files write:files offline_access',
    email: 'alice@example.com',
  },
  256,
);

export interface KeptCase {
  what: string;
  text: string;
}

/** Text with nothing to summarize: ids, hashes, tokens, paths, links, words. */
export const LEFT_ALONE: KeptCase[] = [
  // Found by the generated-text property (seed -310972168): `wOF` is where a WOFF header starts,
  // and where this text starts too; a font needs `wOFF` or `wOF2`.
  { what: 'base64 of text that starts like a WOFF header ("wOFaa…")', text: 'x d09GYWHDqWFh4oKs y' },
  { what: 'UUID v4 in a sentence', text: 'request 550e8400-e29b-41d4-a716-446655440000 accepted' },
  { what: 'UUID in upper case, in JSON', text: '{"requestId":"F47AC10B-58CC-4372-A567-0E02B2C3D479"}' },
  {
    what: 'UUIDs joined by an underscore',
    text: 'a3bb189e-8bf9-3888-9912-ace4e6543002_2f1f0c9e-0b5f-4a5e-9f1a-7c6d3f2e1b0a',
  },
  { what: 'hex SHA-256', text: `sha256 ${hex('sha256', 'ferry')}` },
  { what: 'hex SHA-1 and MD5', text: `sha1=${hex('sha1', 'ferry')} md5=${hex('md5', 'ferry')}` },
  { what: 'hex SHA-512 (128 characters)', text: hex('sha512', 'ferry') },
  { what: 'hex digest in upper case', text: hex('sha256', 'ferry').toUpperCase() },
  {
    what: 'git SHAs, full and short',
    text: 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main, origin/main) reverts abc1234',
  },
  { what: 'container image digest', text: `nginx@sha256:${hex('sha256', 'nginx')}` },
  { what: 'Ethereum address (mixed-case hex checksum)', text: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
  { what: 'MongoDB ObjectId', text: 'ObjectId("507f1f77bcf86cd799439011")' },
  { what: 'Relay global id (base64 of text)', text: 'node VXNlcjoxMjM0NQ== and MDQ6VXNlcjU4MzIzMQ==' },
  {
    what: 'pagination cursor: base64 of JSON under 200 characters',
    text: `{"next":"${b64('{"id":12345,"createdAt":"2024-01-01T00:00:00Z","sort":"desc","filter":"region:North"}')}"}`,
  },
  {
    what: 'base64 of an English sentence',
    text: b64('Quarterly revenue grew 12% in the North region, led by the new product line.'),
  },
  {
    what: 'base64 of UTF-8 text',
    text: b64('Grüße aus Köln, Straße 5 — 東京の天気は晴れ、気温は二十度です。'),
  },
  { what: 'SHA-256 in base64 (44 characters)', text: `digest ${digest64('sha256', 'ferry')}` },
  {
    what: 'Subresource Integrity and npm integrity hashes',
    text: `<script integrity="sha384-${digest64('sha384', 'a')}"></script> "integrity": "sha512-${digest64('sha512', 'b')}" sha256-${digest64('sha256', 'c')}`,
  },
  { what: 'JWT (HS256) in text', text: `the session token is ${HS256_JWT}.` },
  {
    what: 'JWT (RS256, 342-character signature) in JSON',
    text: `{"id_token":"${RS256_JWT}","expires_in":3600}`,
  },
  {
    what: 'JWT in a URL fragment',
    text: `https://app.example.com/callback#id_token=${HS256_JWT}&state=af0ifjsldkj`,
  },
  {
    what: 'POSIX path with mixed case and digits',
    text: '/Users/Alice/Documents/Projects/QuarterlyReport2024/DraftVersion3/FinalSummaryForBoard',
  },
  {
    what: 'node_modules path',
    text: '/home/runner/work/ferry/ferry/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js',
  },
  {
    what: 'Windows path',
    text: 'C:\\Users\\Alice\\AppData\\Local\\Microsoft\\WindowsApps\\PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0\\python.exe',
  },
  {
    what: 'Java source path',
    text: 'src/main/java/com/example/inventory/service/impl/WarehouseStockReconciliationServiceImpl.java',
  },
  {
    what: 'URL with a long query string (Google search)',
    text: 'https://www.google.com/search?q=base64+encode+file+python&sca_esv=2d3f7a1b9c&sxsrf=ACQVn0_8hR1Y4kq2ZsXoT5aB7cD9eF1gH3jK5lM7nP9qR1sT3uV5wX7yZ9aB1c:1700000000000&ved=2ahUKEwjX8t7p2ZuEAxVQhf0HHb3aCk4Q4dUDegQIChAM&uact=5',
  },
  {
    what: 'URL with a 150-character opaque query value',
    text: `<a href="https://cdn.example.com/v1/assets/report.pdf?state=${b64url(seededBytes('state', 112))}&v=2">report</a>`,
  },
  {
    what: 'Markdown link with a long path',
    text: '[Q3 report](https://example.com/reports/Q3-2024/RegionalBreakdownByProductCategoryAndSalesChannel)',
  },
  { what: 'camelCase identifier', text: 'getUserProfileImageThumbnailUrlForAccountSettingsPage()' },
  { what: 'PascalCase class name', text: 'AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor' },
  { what: 'SCREAMING_SNAKE constant', text: 'MAX_UPLOAD_SIZE_IN_BYTES_FOR_SESSION_FILES_V2 = 1048576' },
  {
    what: 'snake_case test name',
    text: 'test_upload_rejects_files_larger_than_the_configured_limit_with_E_FILE_TOO_LARGE',
  },
  {
    what: 'kebab-case resource name with a timestamp',
    text: 'AWSLambdaBasicExecutionRole-2024-09-17T12-00-00Z-ProductionDeployment',
  },
  {
    what: 'mixed identifiers joined by slashes',
    text: 'MyComponent2/useFetchUserData3/HTTPRequestV2Handler/ErrorBoundaryFallbackView',
  },
  {
    what: 'English words',
    text: 'The quick brown fox jumps over the lazy dog. Antidisestablishmentarianism and Donaudampfschifffahrtsgesellschaftskapitaensmuetze are long words.',
  },
  {
    what: 'wiki page name',
    text: 'wiki/List_of_Presidents_of_the_United_States_by_Previous_Experience_2024',
  },
  { what: 'base32 (TOTP secret)', text: 'otpauth secret JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' },
  { what: 'ULID', text: '01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  {
    what: 'IPFS CID (46 characters)',
    text: 'ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG and bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
  },
  {
    what: 'Bitcoin addresses',
    text: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  },
  {
    what: 'API keys under 48 characters',
    text: 'sk-live-123456 ghp_16C7e42F292c6912E7710c838347Ae178B4a AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  },
  { what: 'Stripe ids', text: 'customer cus_NffrFeUfNV2Hib paid pi_3MtwBwLkdIwHu7ix28a3tqPa' },
  { what: 'nanoid and YouTube ids', text: 'V1StGXR8_Z5jdHi6B-myT https://youtu.be/dQw4w9WgXcQ' },
  { what: 'random id under 48 characters', text: `id ${alphanumeric('short-id', 40)}` },
  {
    what: 'S3 upload id and continuation token, named as such (JSON)',
    text: `{"UploadId":"${b64url(seededBytes('upload', 60))}","NextContinuationToken": "${b64(seededBytes('next', 40))}"}`,
  },
  {
    what: 'S3 upload id and ETag, named as such (XML)',
    text: `<UploadId>${b64url(seededBytes('xml-upload', 60))}</UploadId><ETag>${b64(seededBytes('etag', 48))}</ETag>`,
  },
  {
    what: 'page token and cursor, named as such (text)',
    text: `nextPageToken=${b64url(seededBytes('page', 90))} next_cursor: ${b64(seededBytes('cursor', 50))}`,
  },
  { what: 'DNA sequence', text: 'ACGT'.repeat(60) },
  {
    what: 'SVG path data',
    text: '<path d="M680-80v-120H560v-80h120v-120h80v120h120v80H760v120h-80ZM200-200v-200h80v120h120v80H200Z"/>',
  },
  {
    what: 'alphabets spelled out in code',
    text: "const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'; const URL_SAFE = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';",
  },
  {
    what: 'CSS classes',
    text: '<div class="flex items-center justify-between px-4 py-2 text-sm font-medium text-gray-700">',
  },
  { what: 'Kubernetes pod name', text: 'ferry-api-7d9f8b6c5d-x2k4p' },
  { what: 'e-mail address', text: 'alice.smith+newsletter@example-company.com' },
  { what: 'semantic version', text: '1.0.0-alpha.1+exp.sha.5114f85' },
  {
    what: "Ferry's own summaries",
    text: 'data:image/png;base64,[8 bytes] and [base64, 600 characters omitted]',
  },
];

export interface SummarizedCase {
  what: string;
  before: string;
  /** The run that becomes `[base64, <n> characters omitted]`, its `=` padding included. */
  payload: string;
  after: string;
}

const CSV = Array.from({ length: 12 }, (_, i) => `region-${i},${100 + i * 7},${(i * 13) % 50}`).join('\n');

/** Payloads the model would only retype. */
export const SUMMARIZED: SummarizedCase[] = [
  {
    what: 'WOFF2 header (24 characters)',
    before: 'font ',
    payload: 'd09GMgABAAAAABI0AAoAAA==',
    after: ' end',
  },
  {
    what: 'PNG signature and IHDR (24 characters)',
    before: 'thumb ',
    payload: 'iVBORw0KGgoAAAANSUhEUgAA',
    after: ' end',
  },
  {
    what: 'a whole 1×1 PNG',
    before: '{"icon":"',
    payload:
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    after: '"}',
  },
  {
    what: 'JPEG (JFIF) start',
    before: 'jpeg: ',
    payload:
      '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/',
    after: '\n',
  },
  {
    what: 'gzip of a word (36 characters)',
    before: 'gz=',
    payload: 'H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==',
    after: '',
  },
  {
    what: 'zip local file header',
    before: '',
    payload: b64(Buffer.concat([Buffer.from('504b0304140000000800', 'hex'), seededBytes('zip', 26)])),
    after: '',
  },
  {
    what: 'PDF start (mostly text once decoded)',
    before: 'pdf: ',
    payload: 'JVBERi0xLjcKJeLjz9MKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCg==',
    after: '',
  },
  {
    what: 'WebP header',
    before: '',
    payload: b64(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')])),
    after: '',
  },
  {
    what: 'MP4 header',
    before: '',
    payload: b64(
      Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), seededBytes('mp4', 8)]),
    ),
    after: '',
  },
  {
    what: '36 random bytes (48 characters)',
    before: 'key ',
    payload: b64(seededBytes('r36', 36)),
    after: ' ok',
  },
  { what: '48 random bytes, base64url', before: '"', payload: b64url(seededBytes('r48', 48)), after: '"' },
  { what: '64 random bytes with padding', before: '', payload: b64(seededBytes('r64', 64)), after: '' },
  {
    what: '100 random bytes, base64url',
    before: 'x\n',
    payload: b64url(seededBytes('r100', 100)),
    after: '\ny',
  },
  {
    what: '112 random bytes (150 characters)',
    before: '(',
    payload: b64(seededBytes('r112', 112)),
    after: ')',
  },
  {
    what: 'random bytes in a JSON string value (structuredContent)',
    before: '{"thumbnail":"',
    payload: b64(seededBytes('json', 60)),
    after: '","width":64,"height":64}',
  },
  {
    what: 'random bytes before a full stop',
    before: 'the key material is ',
    payload: b64(seededBytes('stop', 45)),
    after: '. Done.',
  },
  {
    what: 'API key with a 48-character random body',
    before: 'OPENAI_API_KEY=',
    payload: `sk-${alphanumeric('openai', 48)}`,
    after: '\n',
  },
  { what: 'base64 of text over 200 characters', before: 'csv ', payload: b64(CSV), after: '' },
  {
    what: 'random bytes over 200 characters in a URL',
    before: 'https://upload.example.com/put?data=',
    payload: b64url(seededBytes('url', 160)),
    after: '&v=1',
  },
  {
    what: 'random bytes under a name that only ends like id',
    before: '{"paid":"',
    payload: b64(seededBytes('paid', 48)),
    after: '"}',
  },
  {
    what: 'random bytes over 200 characters named as a token',
    before: '"SessionToken": "',
    payload: b64(seededBytes('session', 200)),
    after: '"',
  },
  {
    what: 'random bytes glued to a word',
    before: '',
    payload: `thumb_${b64url(seededBytes('glued', 48))}`,
    after: '',
  },
];
