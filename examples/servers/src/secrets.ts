// Convention: Ferry's file provider (the client callback tools of
// ../shared/spec/client-file-provider-callbacks.md). This server holds no files and never opens one
// itself: `scan_secrets` asks the provider for the user's files (find_files, or list_directory when
// the provider lacks the optional tools), reads each through read_file (files over a size limit are
// skipped on the provider's FileSizeLimitExceededError, never read), fingerprints each scanned file
// with calculate_file_hash (sha256, so the user can check which bytes were scanned) and reports what
// looks like a secret as a v2.1 result with a markdown report. A secret is never echoed: the
// answer holds its rule, place and a masked form only. Needs `"fileProvider": true` in its config.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/secrets.ts [--http <port>]
import { FerryError, isValidUsername } from '@ferry/contract';
import {
  connectFileProvider,
  type FileProvider,
  FileProviderCallError,
  isMainModule,
  reportProgress,
  runServer,
  v21Result,
  withErrorEnvelope,
} from '@ferry/server-kit';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** Files larger than this are skipped (the provider refuses to read them). */
export const MAX_SCAN_BYTES = 1024 * 1024;
/** At most this many files are scanned per call. */
export const MAX_SCAN_FILES = 1000;
/** Findings listed in the answer; the count covers all of them. */
export const MAX_LISTED_FINDINGS = 200;

export interface SecretRule {
  id: string;
  description: string;
  pattern: RegExp;
  /** The capture group holding the secret (0: the whole match). */
  group: number;
  /** Leading characters of the secret safe to show (a well-known prefix). */
  keep: number;
}

// Global regexes: each line is scanned for every match. Boundaries keep a longer random string from
// matching in its middle.
export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'aws_access_key_id',
    description: 'AWS access key ID',
    pattern: /\b((?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16})\b/g,
    group: 1,
    keep: 4,
  },
  {
    id: 'aws_secret_access_key',
    description: 'AWS secret access key',
    pattern: /aws_?secret_?access_?key\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})\b/gi,
    group: 1,
    keep: 0,
  },
  {
    id: 'private_key',
    description: 'Private key',
    pattern: /-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----/g,
    group: 0,
    keep: Number.POSITIVE_INFINITY,
  },
  {
    id: 'github_token',
    description: 'GitHub token',
    pattern: /\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    group: 1,
    keep: 4,
  },
  {
    id: 'slack_token',
    description: 'Slack token',
    pattern: /\b(xox[abposr]-[A-Za-z0-9-]{10,})\b/g,
    group: 1,
    keep: 5,
  },
  {
    id: 'password_assignment',
    description: 'Password assignment',
    // No word boundary in front: DB_PASSWORD= and "password": count too.
    pattern: /(?:password|passwd|pwd)["']?\s*[=:]\s*["']?([^\s"'#,;]{4,})/gi,
    group: 1,
    keep: 0,
  },
];

/**
 * A secret with all but its first `keep` characters hidden behind a fixed-width mask, so neither
 * the secret nor its length shows. A header (private key) with keep = Infinity is shown as is.
 */
export function maskSecret(secret: string, keep: number): string {
  if (keep >= secret.length) return secret;
  return `${secret.slice(0, keep)}********`;
}

export interface Finding {
  path: string;
  line: number;
  column: number;
  rule: string;
  description: string;
  masked: string;
}

/** The findings in one file's text, line by line. */
export function findSecrets(
  path: string,
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES,
): Finding[] {
  const findings: Finding[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((content, index) => {
    for (const rule of rules) {
      for (const match of content.matchAll(rule.pattern)) {
        const secret = match[rule.group] ?? match[0];
        findings.push({
          path,
          line: index + 1,
          column: (match.index ?? 0) + 1,
          rule: rule.id,
          description: rule.description,
          masked: maskSecret(secret, rule.keep),
        });
      }
    }
  });
  return findings;
}

export const scanSecretsInput = z.object({
  username: z
    .string()
    .describe(
      'Injected by the host: the authenticated user; the default directory is their workspace /tmp/{username}',
    ),
  directory: z
    .string()
    .optional()
    .describe('Absolute directory to scan, as the file provider sees it (default /tmp/{username})'),
  patterns: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('File-name glob patterns to scan, e.g. ["*.env", "*.py"] (default: every file)'),
});

interface ScannedFile {
  path: string;
  size: number;
  /** From calculate_file_hash; null when the provider does not offer it. */
  sha256: string | null;
  findings: number;
}

interface SkippedFile {
  path: string;
  reason: string;
}

export function createSecretsServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-secrets', version: '0.1.0' });
  server.registerTool(
    'scan_secrets',
    {
      title: 'Scan for secrets',
      description:
        "Scans the user's files (their workspace by default) for committed secrets: AWS keys, private keys, GitHub and Slack tokens, password assignments. Reads the files through Ferry's file provider; reports where each secret is, masked, and the SHA-256 of every scanned file.",
      inputSchema: scanSecretsInput,
    },
    withErrorEnvelope(async ({ username, directory, patterns }, ctx) => {
      if (!isValidUsername(username)) {
        throw new FerryError('E_INVALID_INPUT', `Invalid username ${JSON.stringify(username)}`, {
          field: 'username',
        });
      }
      const root = directory ?? `/tmp/${username}`;
      const started = Date.now();
      const provider = await connectFileProvider();
      try {
        const { tools } = await provider.client.listTools();
        const offers = new Set(tools.map((tool) => tool.name));
        const candidates = await findCandidates(provider, offers, root, patterns ?? ['*']);
        const paths = candidates.slice(0, MAX_SCAN_FILES);
        const scanned: ScannedFile[] = [];
        const skipped: SkippedFile[] = [];
        const findings: Finding[] = [];
        for (const [index, path] of paths.entries()) {
          await reportProgress(ctx, index, paths.length, `scanning ${path}`);
          const text = await readScannable(provider, path, skipped);
          if (text === undefined) continue;
          // calculate_file_hash is optional in the spec: without it the fingerprint is null.
          const sha256 = offers.has('calculate_file_hash') ? await provider.hash(path, 'sha256') : null;
          const found = findSecrets(path, text);
          findings.push(...found);
          scanned.push({ path, size: Buffer.byteLength(text), sha256, findings: found.length });
        }
        const report = renderReport(root, scanned, skipped, findings, candidates.length);
        const summary =
          findings.length === 0
            ? `No secrets found in ${scanned.length} files under ${root}`
            : `${findings.length} possible secret${findings.length === 1 ? '' : 's'} in ${new Set(findings.map((f) => f.path)).size} of ${count(scanned.length, 'file')} under ${root}`;
        return v21Result({
          results: {
            summary,
            directory: root,
            files_scanned: scanned.length,
            files_skipped: skipped.length,
            findings_count: findings.length,
            findings: findings.slice(0, MAX_LISTED_FINDINGS),
            files: scanned,
            skipped,
          },
          metaData: {
            elapsed_ms: Date.now() - started,
            max_scan_bytes: MAX_SCAN_BYTES,
            files_found: candidates.length,
            truncated: candidates.length > paths.length,
          },
          artifacts: [
            {
              name: 'secrets-report.md',
              b64: Buffer.from(report).toString('base64'),
              mime: 'text/markdown',
              description: summary,
              category: 'report',
            },
          ],
          display: { open_canvas: true, primary_file: 'secrets-report.md' },
        });
      } finally {
        await provider.close();
      }
    }),
  );
  return server;
}

/**
 * The files to scan: find_files when the provider offers it; otherwise a recursive list_directory
 * per pattern, keeping the entries get_file_stats says are files.
 */
async function findCandidates(
  provider: FileProvider,
  offers: ReadonlySet<string>,
  root: string,
  patterns: string[],
): Promise<string[]> {
  if (offers.has('find_files')) {
    return (await provider.find(root, patterns, { recursive: true, maxFiles: MAX_SCAN_FILES + 1 })).sort();
  }
  const entries = new Set<string>();
  for (const pattern of patterns) {
    for (const path of await provider.list(root, {
      pattern,
      recursive: true,
      maxFiles: MAX_SCAN_FILES + 1,
    })) {
      entries.add(path);
    }
  }
  const files: string[] = [];
  for (const path of [...entries].sort()) {
    if ((await provider.stats(path)).file_type === 'file') files.push(path);
  }
  return files;
}

/** The file's text, or undefined (and why, in `skipped`) when it is too large, binary or unreadable. */
async function readScannable(provider: FileProvider, path: string, skipped: SkippedFile[]) {
  try {
    return await provider.readText(path, { maxSize: MAX_SCAN_BYTES });
  } catch (error) {
    if (!(error instanceof FileProviderCallError)) throw error;
    const reason =
      error.errorType === 'FileSizeLimitExceededError'
        ? `larger than ${MAX_SCAN_BYTES} bytes`
        : error.errorType === 'FileProviderError' && /encoding/i.test(error.message)
          ? 'not UTF-8 text'
          : `${error.errorType}: ${error.message}`;
    skipped.push({ path, reason });
    return undefined;
  }
}

function renderReport(
  root: string,
  scanned: ScannedFile[],
  skipped: SkippedFile[],
  findings: Finding[],
  found: number,
): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('`', "'");
  const lines = [
    '# Secret scan',
    '',
    `Directory: \`${cell(root)}\` · ${count(scanned.length, 'file')} scanned · ${skipped.length} skipped · ${count(findings.length, 'finding')}`,
    '',
  ];
  if (found > MAX_SCAN_FILES)
    lines.push(`Only the first ${MAX_SCAN_FILES} of ${found} files were scanned.`, '');
  lines.push('## Findings', '');
  if (findings.length === 0) lines.push('None.', '');
  else {
    lines.push('| File | Line | Kind | Value (masked) |', '|---|---|---|---|');
    for (const finding of findings.slice(0, MAX_LISTED_FINDINGS)) {
      lines.push(
        `| \`${cell(finding.path)}\` | ${finding.line} | ${finding.description} | \`${cell(finding.masked)}\` |`,
      );
    }
    lines.push('');
  }
  lines.push('## Scanned files (SHA-256)', '', '| File | Bytes | SHA-256 | Findings |', '|---|---|---|---|');
  for (const file of scanned) {
    lines.push(
      `| \`${cell(file.path)}\` | ${file.size} | ${file.sha256 === null ? '(not offered)' : `\`${file.sha256}\``} | ${file.findings} |`,
    );
  }
  if (skipped.length > 0) {
    lines.push('', '## Skipped', '');
    for (const file of skipped) lines.push(`- \`${cell(file.path)}\`: ${cell(file.reason)}`);
  }
  return `${lines.join('\n')}\n`;
}

if (isMainModule(import.meta.url)) await runServer(createSecretsServer, { name: 'secrets' });

/** "1 file", "2 files". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
