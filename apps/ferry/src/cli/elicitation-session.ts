// The questions of one `ferry call`: each `elicitation` event is asked in turn (elicitation-form.ts;
// a link to open, elicitation-link.ts) and answered with POST
// /api/calls/{id}/elicitations/{elicitationId}, or declined at once with --no-input. A question answered elsewhere (the web app, the 10-minute timeout, the call ending)
// stops being asked. An answer Ferry refuses (wrong file type, too large, not a field) is shown and
// the field it names asked again: the question stays open on the server until it fits.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  checkFileInput,
  type ElicitationAnswer,
  isGenericMime,
  type McpFileDescriptor,
  mimeFromName,
} from '@ferry/contract';
import type { ApiClient } from './api-client.js';
import {
  askForm,
  type ElicitationQuestion,
  type FileResolver,
  type FormOutcome,
  formFields,
  HOW_TO_ANSWER,
} from './elicitation-form.js';
import { askLink, linkHeadline } from './elicitation-link.js';
import { CliError, EXIT } from './exit-codes.js';
import { resolveFile } from './files-command.js';
import type { LineSource } from './line-source.js';
import { createProgressBar } from './progress.js';

export interface QuestionsOptions {
  client: ApiClient;
  callId: string;
  /** `decline`: --no-input, every question is declined without asking. */
  mode: 'ask' | 'decline';
  /** Opened on the first question only, so a call that asks nothing never touches stdin. */
  lines(): LineSource;
  resolveFile: FileResolver;
  note(line: string): void;
  /** True while a question is being asked: the progress bar must not draw over the prompt. */
  onAsking?(asking: boolean): void;
}

export interface Questions {
  asked(question: ElicitationQuestion): void;
  answered(elicitationId: string, action: string): void;
  /** Stops any question still being asked (the call has ended) and waits for the answers sent. */
  close(): Promise<void>;
}

export function createQuestions(options: QuestionsOptions): Questions {
  const { client, callId } = options;
  const settled = new Map<string, string>();
  const closed = new AbortController();
  let current: { id: string; controller: AbortController } | undefined;
  let chain = Promise.resolve();

  const post = (id: string, body: ElicitationAnswer) =>
    client.json(
      'POST',
      `/api/calls/${encodeURIComponent(callId)}/elicitations/${encodeURIComponent(id)}`,
      body,
    );

  const bodyOf = (outcome: FormOutcome): ElicitationAnswer =>
    outcome.action === 'accept'
      ? {
          action: 'accept',
          content: outcome.content,
          ...(Object.keys(outcome.files).length > 0 ? { files: outcome.files } : {}),
        }
      : { action: outcome.action };

  const ask = async (
    question: ElicitationQuestion,
    lines: LineSource,
    signal: AbortSignal,
  ): Promise<void> => {
    const link = question.mode === 'url';
    const fields = link ? [] : formFields(question);
    if (!link) {
      lines.say(`\n? ${question.message}`);
      lines.say(`  ${HOW_TO_ANSWER}`);
    }
    let only: string[] | undefined;
    let previous: Extract<FormOutcome, { action: 'accept' }> | undefined;
    for (;;) {
      let outcome: FormOutcome;
      if (link) outcome = await askLink(question, lines, signal);
      else if (fields.length === 0) {
        // Nothing to fill in: the question is a confirmation.
        const line = await lines.ask('  Accept? (Enter accepts): ', signal);
        const command = line?.trim().toLowerCase();
        outcome =
          line === null || command === '!decline'
            ? { action: 'decline' }
            : command === '!cancel'
              ? { action: 'cancel' }
              : { action: 'accept', content: {}, files: {} };
      } else {
        outcome = await askForm(fields, {
          lines,
          resolveFile: options.resolveFile,
          signal,
          ...(only ? { only } : {}),
          ...(previous ? { previous } : {}),
        });
      }
      if (signal.aborted) {
        const elsewhere = settled.get(question.elicitationId);
        if (elsewhere) lines.say(`  (question closed: ${elsewhere})`);
        return;
      }
      try {
        await post(question.elicitationId, bodyOf(outcome));
        lines.say(
          outcome.action === 'accept'
            ? link
              ? '  told the server you opened the link'
              : '  answer sent'
            : `  ${outcome.action === 'cancel' ? 'cancelled' : 'declined'}`,
        );
        return;
      } catch (error) {
        const api = error instanceof CliError ? error.api : undefined;
        if (api?.status === 404) {
          lines.say('  the question is no longer open');
          return;
        }
        if (outcome.action !== 'accept' || !api || api.status < 400 || api.status >= 500) throw error;
        lines.say(`    ! ${(error as Error).message}`);
        // The field Ferry names, else for a file error (wrong type, too large, gone) the file fields.
        const field = typeof api.details?.field === 'string' ? api.details.field : undefined;
        const files = fields.filter((f) => f.kind === 'file').map((f) => f.name);
        only =
          field && fields.some((f) => f.name === field)
            ? [field]
            : api.code?.startsWith('E_FILE_') && files.length > 0
              ? files
              : undefined;
        previous = only ? outcome : undefined;
      }
    }
  };

  const handle = async (question: ElicitationQuestion): Promise<void> => {
    if (closed.signal.aborted || settled.has(question.elicitationId)) return;
    if (options.mode === 'decline') {
      await post(question.elicitationId, { action: 'decline' }).catch((error: unknown) => {
        if (!(error instanceof CliError && error.api?.status === 404)) throw error;
      });
      // A link is printed in full even unasked: the user may want to open it after all.
      options.note(
        `question declined (--no-input): ${question.mode === 'url' ? linkHeadline(question) : question.message}`,
      );
      return;
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    closed.signal.addEventListener('abort', stop, { once: true });
    current = { id: question.elicitationId, controller };
    options.onAsking?.(true);
    const lines = options.lines();
    try {
      await ask(question, lines, controller.signal);
    } finally {
      lines.idle();
      closed.signal.removeEventListener('abort', stop);
      current = undefined;
      options.onAsking?.(false);
    }
  };

  return {
    asked(question) {
      chain = chain
        .then(() => handle(question))
        .catch((error: unknown) =>
          options.note(`could not answer the question: ${(error as Error).message}`),
        );
    },
    answered(elicitationId, action) {
      settled.set(elicitationId, action);
      if (current?.id === elicitationId) current.controller.abort();
    },
    async close() {
      closed.abort();
      await chain;
    },
  };
}

/**
 * A file answer: an existing local path is uploaded to My Files (checked against the field's
 * accept/maxSize first, so a wrong file is not uploaded for nothing); anything else is a My Files
 * id or exact name.
 */
export function createFileResolver(client: ApiClient, stderr: NodeJS.WriteStream): FileResolver {
  return async (answer, field) => {
    const descriptor: McpFileDescriptor = {
      ...(field.accept ? { accept: field.accept } : {}),
      ...(field.maxSize === undefined ? {} : { maxSize: field.maxSize }),
    };
    const local = await stat(answer).catch(() => undefined);
    if (local?.isDirectory()) return { ok: false, reason: `${answer} is a directory` };
    if (local?.isFile()) {
      if (field.maxSize !== undefined && local.size > field.maxSize)
        return {
          ok: false,
          reason: `${basename(answer)} is ${local.size} bytes; the limit is ${field.maxSize} bytes`,
        };
      const guessed = mimeFromName(answer);
      // An unknown extension says nothing about the type: Ferry's sniffing decides after upload.
      const before = checkFileInput({ mime: guessed, name: basename(answer), size: local.size }, descriptor);
      if (!before.ok && !isGenericMime(guessed)) return { ok: false, reason: before.reason };
      const bar = createProgressBar(`uploading ${basename(answer)}`, stderr);
      try {
        const file = await client.upload(answer, { onProgress: (done, total) => bar.update(done, total) });
        bar.stop();
        const after = checkFileInput(file, descriptor);
        if (!after.ok) {
          // Uploaded only for this answer, which cannot use it: leave My Files as it was.
          await client.json('DELETE', `/api/files/${file.id}`).catch(() => undefined);
          return { ok: false, reason: after.reason };
        }
        return { ok: true, id: file.id, name: file.name };
      } catch (error) {
        bar.stop();
        return { ok: false, reason: `upload failed: ${(error as Error).message}` };
      }
    }
    let file: Awaited<ReturnType<typeof resolveFile>>;
    try {
      file = await resolveFile(client, answer);
    } catch (error) {
      // Not found (404 for an id, "No file named" for a name) is the user's typo; anything else
      // (Ferry unreachable, 5xx) is said as it is.
      const notFound =
        error instanceof CliError && (error.api ? error.api.status === 404 : error.exitCode === EXIT.refused);
      return {
        ok: false,
        reason: notFound
          ? `no local file and no file in My Files called ${JSON.stringify(answer)}`
          : (error as Error).message,
      };
    }
    const check = checkFileInput(file, descriptor);
    return check.ok ? { ok: true, id: file.id, name: file.name } : { ok: false, reason: check.reason };
  };
}
