// ferry admin fsck [--repair]: an operator's command, run on the machine. It opens the storage the
// config names (as `ferry start` does, not through a running Ferry's API) and checks that catalog
// rows and blobs agree (@ferry/storage checkStorage). Safe beside a running Ferry: what is younger
// than the grace period (an upload still under way, on any instance) is left alone.
import { formatBytes } from '@ferry/contract';
import { checkConfiguredStorage, type FsckFindings, type FsckReport } from '@ferry/storage';
import type { Command } from 'commander';
import { loadFerryConfig } from '../config/load-config.js';
import type { CliIo, GlobalOptions } from './context.js';
import { EXIT } from './exit-codes.js';

export function addAdminCommand(program: Command, io: CliIo): void {
  const admin = program
    .command('admin')
    .description("operator commands, run where Ferry's storage is reachable (not through --url)");

  admin
    .command('fsck')
    .description('check that file rows and stored blobs agree; --repair removes what does not')
    .option('--repair', 'remove rows without a blob, blobs without a row and stale partial uploads')
    .option('-c, --config <file>', 'config file (default: FERRY_CONFIG or ./ferry.config.json)')
    .action(async (opts: { repair?: boolean; config?: string }, command: Command) => {
      const { json } = command.optsWithGlobals() as GlobalOptions;
      const config = loadFerryConfig({ env: io.env, ...(opts.config ? { path: opts.config } : {}) });
      const report = await checkConfiguredStorage(config.storage, { repair: opts.repair === true });
      const out = json ? [JSON.stringify(report, null, 2)] : fsckLines(report);
      for (const line of out) io.stdout.write(`${line}\n`);
      for (const warning of report.warnings) io.stderr.write(`warning: ${warning}\n`);
      if (!report.consistent) process.exitCode = EXIT.inconsistent;
    });
}

/** The report for people: counts, then each finding listed. */
function fsckLines(report: FsckReport): string[] {
  const lines = [
    `Checked ${report.scanned.rows} file row(s) and ${report.scanned.blobs} blob(s); grace period ${Math.round(report.graceMs / 60_000)} min.`,
  ];
  lines.push(
    ...section('Rows without a blob (files that cannot be read)', report.missingBlobs, (item) =>
      [item.id, item.username ?? `(owner ${item.owner})`, `${item.name} (v${item.version})`].join('  '),
    ),
    ...section('Blobs without a row', report.orphanBlobs, (item) =>
      [item.key, formatBytes(item.size), `written ${item.modifiedAt}`].join('  '),
    ),
    ...section('Partial uploads (interrupted puts)', report.partialUploads, (item) =>
      [item.key ?? item.id, item.key ? `upload ${item.id}` : '', `started ${item.startedAt}`]
        .filter(Boolean)
        .join('  '),
    ),
  );
  if (report.recentBlobs > 0) {
    lines.push(`Left alone: ${report.recentBlobs} blob(s) without a row, younger than the grace period.`);
  }
  const found = report.missingBlobs.found + report.orphanBlobs.found + report.partialUploads.found;
  const left = report.missingBlobs.left + report.orphanBlobs.left + report.partialUploads.left;
  if (found === 0) lines.push('Consistent.');
  else if (left === 0) lines.push(`Repaired: ${found} problem(s) removed; consistent now.`);
  else if (report.repair) lines.push(`${left} problem(s) left after repair (see the warnings).`);
  else lines.push(`${found} problem(s) found; \`ferry admin fsck --repair\` removes them.`);
  return lines;
}

function section<T>(title: string, findings: FsckFindings<T>, describe: (item: T) => string): string[] {
  const repaired = findings.repaired > 0 ? `, ${findings.repaired} removed` : '';
  const lines = [`${title}: ${findings.found}${repaired}`];
  for (const item of findings.items) lines.push(`  ${describe(item)}`);
  const unlisted = findings.found - findings.items.length;
  if (unlisted > 0) lines.push(`  … and ${unlisted} more not listed`);
  return lines;
}
