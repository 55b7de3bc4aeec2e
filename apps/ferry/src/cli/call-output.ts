// How `ferry call` and `ferry calls show` print a settled call: the result for people (results,
// files, the tool's meta_data, whether a failure may be retried), or the call in the form of tool
// contract v2.1 (`--form v2.1`), streamed from the API to stdout as it arrives.
import { CALL_FORMS, type CallForm, formatBytes, type ToolCallResponse } from '@ferry/contract';
import { Option } from 'commander';
import { connectHint } from './connect-hint.js';
import type { CommandContext } from './context.js';

export const formOption = () =>
  new Option(
    '--form <form>',
    'print the outcome as a tool contract v2.1 output instead: files inline as b64 up to base64_size_limit_mb, a reference above it',
  ).choices(CALL_FORMS);

/** Streams GET /api/calls/:id?form=… to stdout: a 300 MB file inline is never held here. */
export async function printCallForm(ctx: CommandContext, callId: string, form: CallForm): Promise<void> {
  await ctx.client.download(`/api/calls/${callId}?form=${encodeURIComponent(form)}`, ctx.io.stdout);
  ctx.print();
}

export function printResult(ctx: CommandContext, response: ToolCallResponse): void {
  const { results, error } = response.forModel;
  if (error) {
    ctx.print(`error: ${error.message} (${error.code})`);
    if (error.suggestion) ctx.print(`suggestion: ${error.suggestion}`);
    const connect = connectHint(response.forUi.error?.meta_data.details, ctx.options.url);
    if (connect) ctx.print(connect);
    ctx.print(
      error.retryable
        ? 'retryable: yes, the same call may safely be run again'
        : 'retryable: no, running it again as it is would fail the same way',
    );
  } else {
    ctx.print(typeof results === 'string' ? results : JSON.stringify(results, null, 2));
  }
  for (const file of response.forUi.files)
    ctx.print(`file: ${file.name} (${file.mime}, ${formatBytes(file.size)}) ${file.id}`);
  const meta = response.forUi.metaData;
  if (meta && Object.keys(meta).length > 0) {
    ctx.print('meta_data:');
    for (const [key, value] of Object.entries(meta))
      ctx.print(`  ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  for (const warning of response.forUi.warnings) ctx.note(`warning: ${warning}`);
}
