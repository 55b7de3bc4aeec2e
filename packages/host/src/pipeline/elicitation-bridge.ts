// The elicitation bridge (MCP `elicitation/create`): a server asks the user something in the
// middle of a call. The question goes out as a call event; the user answers through
// `host.answerElicitation` (the API's POST /api/calls/:id/elicitations/:elicitationId).
// Form mode, with SEP-2356 `x-mcp-file` fields: file fields are answered with My Files ids, checked
// against accept/maxSize exactly like x-mcp-file tool arguments and sent as RFC 2397 data URIs, so
// the bytes never pass through the browser or the model. URL mode (SEP-1036): the user opens a
// link out of band; the answer is the action alone, never content. While a question is open the
// watchdog's idle clock stands still (a person is typing, or signing in elsewhere); the hard cap
// and the user's cancel still apply, and a question left unanswered for `timeoutMs` is answered
// `cancel`.
import { randomUUID } from 'node:crypto';
import { FerryError, type FerryErrorCode, findFileInputs } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { ElicitationAction, ElicitationRequest, ElicitationResult } from '../connections/connection.js';
import { pickFileInputs } from './pick-file-inputs.js';
import { readFileBase64 } from './read-file-base64.js';

type ContentValue = string | number | boolean | string[];

/** What the user sends: values for plain fields, My Files ids for x-mcp-file fields. */
export interface ElicitationAnswer {
  action: ElicitationAction;
  content?: Record<string, unknown>;
  files?: Record<string, string | string[]>;
}

interface Pending {
  owner: string;
  request: ElicitationRequest;
  settle(result: ElicitationResult): void;
}

export interface ElicitationBroker {
  /** Opens a question of `callId`; settles with the answer, or `cancel` on abort or timeout. */
  ask(
    callId: string,
    owner: string,
    request: ElicitationRequest,
    signal: AbortSignal,
  ): { id: string; result: Promise<ElicitationResult> };
  /**
   * Answers an open question of the owner. Throws a FerryError (E_INVALID_INPUT, E_FILE_NOT_FOUND,
   * E_FILE_TYPE_REJECTED, E_FILE_TOO_LARGE) for an answer that does not fit the form, leaving the
   * question open so the user can correct it; `false` when there is no such open question.
   */
  answer(
    callId: string,
    elicitationId: string,
    owner: string,
    answer: ElicitationAnswer,
    limitBytes: number,
  ): Promise<boolean>;
}

export function createElicitationBroker(options: {
  files: FileStore;
  timeoutMs?: number;
}): ElicitationBroker {
  const open = new Map<string, Pending>();
  const keyOf = (callId: string, id: string) => `${callId}/${id}`;
  const timeoutMs = options.timeoutMs ?? 600_000;
  return {
    ask(callId, owner, request, signal) {
      const id = randomUUID();
      const key = keyOf(callId, id);
      const result = new Promise<ElicitationResult>((resolve) => {
        const settle = (value: ElicitationResult) => {
          if (open.get(key) !== pending) return;
          open.delete(key);
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        };
        const onAbort = () => settle({ action: 'cancel' });
        const pending: Pending = { owner, request, settle };
        open.set(key, pending);
        const timer = setTimeout(onAbort, timeoutMs);
        timer.unref();
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      return { id, result };
    },
    async answer(callId, elicitationId, owner, answer, limitBytes) {
      const pending = open.get(keyOf(callId, elicitationId));
      if (pending === undefined || pending.owner !== owner) return false;
      const result = await resolveAnswer(pending.request, answer, {
        files: options.files,
        owner,
        limitBytes,
      });
      // Another answer may have won while the files were read.
      if (open.get(keyOf(callId, elicitationId)) !== pending) return false;
      pending.settle(result);
      return true;
    },
  };
}

async function resolveAnswer(
  request: ElicitationRequest,
  answer: ElicitationAnswer,
  deps: { files: FileStore; owner: string; limitBytes: number },
): Promise<ElicitationResult> {
  if (request.mode === 'url') {
    // The interaction happens on the server's page; an answer that carries values is a mistake.
    if (Object.keys(answer.content ?? {}).length > 0 || Object.keys(answer.files ?? {}).length > 0)
      throw new FerryError(
        'E_INVALID_INPUT',
        'A link question is answered with accept, decline or cancel only',
      );
    return { action: answer.action };
  }
  if (answer.action !== 'accept') return { action: answer.action };
  const schema = request.requestedSchema;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [];
  const { inputs } = findFileInputs(schema, { surface: 'elicitation' });
  const fileFields = new Set(inputs.map((input) => input.path[0] as string));

  const content: Record<string, ContentValue> = {};
  for (const [field, value] of Object.entries(answer.content ?? {})) {
    const property = properties[field];
    if (!isRecord(property)) throw invalid(field, `${field} is not a field of this form`);
    if (fileFields.has(field))
      throw invalid(field, `${field} is a file field: answer it with a file id in "files"`);
    content[field] = checkValue(field, property, value);
  }
  const picked = await pickFileInputs({
    fileInputs: inputs,
    picks: answer.files,
    files: deps.files,
    owner: deps.owner,
  });
  if (!picked.ok) {
    const meta = picked.error.meta_data;
    throw new FerryError(meta.error_code as FerryErrorCode, picked.error.results.error, meta.details);
  }
  for (const slot of picked.slots) {
    content[slot.argument] = await readFileBase64({
      files: deps.files,
      owner: deps.owner,
      file: slot.file,
      limitBytes: deps.limitBytes,
      dataUri: true,
    });
  }
  const missing = required.filter((field) => content[field] === undefined);
  if (missing.length > 0) throw invalid(missing[0] as string, `Required: ${missing.join(', ')}`);
  return { action: 'accept', content };
}

/** The MCP form schema allows strings (with enums), numbers, integers, booleans and string arrays. */
function checkValue(field: string, property: Record<string, unknown>, value: unknown): ContentValue {
  const type = property.type;
  const options = enumOf(property);
  if (type === 'string' && typeof value === 'string') {
    if (options && !options.includes(value))
      throw invalid(field, `${field} must be one of ${options.join(', ')}`);
    return value;
  }
  if ((type === 'number' || type === 'integer') && typeof value === 'number' && Number.isFinite(value)) {
    if (type === 'integer' && !Number.isInteger(value)) throw invalid(field, `${field} must be an integer`);
    return value;
  }
  if (type === 'boolean' && typeof value === 'boolean') return value;
  if (type === 'array' && Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    const items = isRecord(property.items) ? enumOf(property.items) : undefined;
    const wrong = items ? value.find((item) => !items.includes(item)) : undefined;
    if (wrong !== undefined) throw invalid(field, `${field}: "${wrong}" is not one of ${items?.join(', ')}`);
    return value as string[];
  }
  throw invalid(field, `${field} must be ${type === 'array' ? 'an array of strings' : `a ${String(type)}`}`);
}

function enumOf(schema: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.filter((v): v is string => typeof v === 'string');
  const choices = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : undefined;
  return choices
    ?.map((choice) => (isRecord(choice) ? choice.const : undefined))
    .filter((v): v is string => typeof v === 'string');
}

function invalid(field: string, message: string): FerryError {
  return new FerryError('E_INVALID_INPUT', message, { field });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
