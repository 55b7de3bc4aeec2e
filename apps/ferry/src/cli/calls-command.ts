// ferry calls ls | ferry calls show <id> [--form v2.1]
// The user's recent calls (the ones Ferry still keeps), and one of them again: as `ferry call`
// printed it, as JSON (--json), or in the form of tool contract v2.1 (--form v2.1).
import type { CallDetail, CallForm, CallPage } from '@ferry/contract';
import type { Command } from 'commander';
import { formOption, printCallForm, printResult } from './call-output.js';
import { type CliIo, contextOf, table } from './context.js';
import { EXIT } from './exit-codes.js';

export function addCallsCommand(program: Command, io: CliIo): void {
  const calls = program.command('calls').description('recent tool calls and their outcomes');
  calls
    .command('ls')
    .description('the recent calls, newest first: id, status, start time, server and tool')
    .option('--limit <n>', 'at most this many (default 100, at most 1000)')
    .action(async (opts: { limit?: string }, command: Command) => {
      const ctx = contextOf(command, io);
      const query = opts.limit ? `?limit=${encodeURIComponent(opts.limit)}` : '';
      const page = await ctx.client.json<CallPage>('GET', `/api/calls${query}`);
      if (ctx.options.json) return ctx.printJson(page);
      for (const line of table(
        page.items.map((c) => [c.callId, c.status, c.startedAt, `${c.server} ${c.tool}`]),
      ))
        ctx.print(line);
      if (page.total > page.items.length) ctx.note(`${page.items.length} of ${page.total} calls shown`);
    });
  calls
    .command('show')
    .description('one call and its outcome')
    .argument('<id>', 'the call id (ferry call prints it on stderr)')
    .addOption(formOption())
    .action(async (id: string, opts: { form?: CallForm }, command: Command) => {
      const ctx = contextOf(command, io);
      const path = `/api/calls/${encodeURIComponent(id)}`;
      const detail = await ctx.client.json<CallDetail>('GET', path);
      // A running call has no v2.1 form yet: Ferry answers 409, which exits 4 with its message.
      if (opts.form) await printCallForm(ctx, detail.callId, opts.form);
      else if (ctx.options.json) ctx.printJson(detail);
      else if (detail.response) printResult(ctx, detail.response);
      else ctx.print(`${detail.server} ${detail.tool}: ${detail.status}`);
      process.exitCode = exitCodeOf(detail);
    });
}

/** As `ferry call` exits after the call: 0 done or still running, 1 failed, 130 cancelled. */
function exitCodeOf(detail: CallDetail): number {
  if (detail.status === 'running') return EXIT.ok;
  if (detail.status === 'cancelled') return EXIT.interrupted;
  if (detail.status !== 'finished' || detail.response?.forModel.isError) return EXIT.toolFailed;
  return EXIT.ok;
}
