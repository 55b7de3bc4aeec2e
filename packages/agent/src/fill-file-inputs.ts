// SEP-2356 x-mcp-file inputs of a tool the model calls. The model never writes the value: it may
// name a file of My Files (model-tools.ts shows it a name slot), which Ferry resolves among this
// user's files only and checks against accept/maxSize; a name that does not resolve or fit goes
// back to the model as an error it can correct, and nothing is sent. Then the user decides: the
// call pauses with a `file_request` event showing which file goes to which server and tool (the
// model's choice to approve or change, or a picker when the model named none for a required
// input), and only the user's answer lets the call go out. The SEP (Security Implications) says a
// host MUST NOT encode a file "unless the user explicitly selected that file via a picker or
// equivalent consent gesture for a single (server, tool, request) tuple" and MUST show "the file
// identity … and the destination server" before sending: so a model-named file is confirmed too.
// The host's pipeline makes the data URI from the approved My Files ids (`fileInputs`), exactly as
// for the tool runner's picks.
import { randomUUID } from 'node:crypto';
import {
  type AgentEvent,
  checkFileInput,
  type ErrorEnvelope,
  errorEnvelope,
  type FileInput,
  type FileRequestAnswer,
  type FileRequestInput,
} from '@ferry/contract';
import { pickFileInputs } from '@ferry/host';
import type { FileRecord, FileStore } from '@ferry/storage';
import type { OfferedTool } from './model-tools.js';

/** What the loop reads of My Files. */
export type AgentFiles = Pick<FileStore, 'list' | 'get' | 'resolve' | 'stat'>;

/** A paused call's question to the user, as the chat API holds it until the answer arrives. */
export interface FileRequest {
  requestId: string;
  toolCallId: string;
  server: string;
  tool: string;
  inputs: FileRequestInput[];
  /**
   * Checks the files of an answer for this user and this tool (owner, accept, maxSize, required
   * inputs): an envelope when one does not fit, so the API refuses it and the request stays open.
   */
  check(files: Record<string, string | string[]>): Promise<ErrorEnvelope | undefined>;
}

export type FileRequestOutcome = FileRequestAnswer | { action: 'cancel' };

/** Asks the user; resolves with `cancel` when `signal` aborts (the turn stopped). */
export type RequestFiles = (request: FileRequest, signal: AbortSignal) => Promise<FileRequestOutcome>;

export interface FillFileInputsInput {
  tool: OfferedTool;
  toolCallId: string;
  /** x-mcp-file argument → the names the model gave (tool-arguments.ts). */
  fileNames: Record<string, string[]>;
  owner: string;
  files: AgentFiles;
  /** Undefined where no user can be asked (then a call that needs a file is refused). */
  requestFiles?: RequestFiles | undefined;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
}

export type FillFileInputsResult =
  | { ok: true; fileInputs?: Record<string, string | string[]> }
  | { ok: false; code: string; message: string };

export async function fillFileInputs(input: FillFileInputsInput): Promise<FillFileInputsResult> {
  const { tool, owner, files } = input;
  const inputs = tool.conventions.fileInputs;
  if (inputs.length === 0) return { ok: true };
  const where = `${tool.server} › ${tool.tool}`;

  const proposed = new Map<string, FileRecord[]>();
  for (const [key, names] of Object.entries(input.fileNames)) {
    const fileInput = inputs.find((candidate) => candidate.path[0] === key) as FileInput;
    const found: FileRecord[] = [];
    for (const name of names) {
      const refused = (code: string, why: string): FillFileInputsResult => ({
        ok: false,
        code,
        message: `${why} Nothing was sent to ${where}. Give the name of another file from the available files, or leave "${key}" out to let the user pick the file.`,
      });
      if (/^data:/i.test(name.trim())) {
        return refused(
          'E_INVALID_INPUT',
          `"${key}" takes the name of a file in the user's files, not a data URI: Ferry encodes the file itself.`,
        );
      }
      const file = await files.resolve(owner, name);
      if (!file) return refused('E_FILE_NOT_FOUND', `No file named "${name}" in the user's files.`);
      const check = checkFileInput(
        { mime: file.mime, name: file.name, size: file.size },
        fileInput.descriptor,
      );
      if (!check.ok) return refused(check.code, `${check.reason} (for "${key}" of ${where}).`);
      found.push(file);
    }
    proposed.set(key, found);
  }

  const missing = inputs.filter((i) => i.required && !proposed.has(i.path[0] as string));
  // Nothing named and nothing required: the tool runs without its optional files.
  if (proposed.size === 0 && missing.length === 0) return { ok: true };
  if (!input.requestFiles) {
    return {
      ok: false,
      code: 'E_INVALID_INPUT',
      message: `${where} takes a file the user must pick or approve, and the user cannot be asked here. Nothing was sent.`,
    };
  }

  const request: FileRequest = {
    requestId: randomUUID(),
    toolCallId: input.toolCallId,
    server: tool.server,
    tool: tool.tool,
    inputs: inputs.map((i) => requestInput(i, tool, proposed.get(i.path[0] as string) ?? [])),
    check: async (picks) => {
      const absent = inputs.find((i) => i.required && !((i.path[0] as string) in picks));
      if (absent) {
        const field = absent.path[0] as string;
        return errorEnvelope('E_INVALID_INPUT', { field }, `${field}: pick a file (it is required)`);
      }
      const picked = await pickFileInputs({ fileInputs: inputs, picks, files, owner });
      return picked.ok ? undefined : picked.error;
    },
  };
  // Registered before it is announced, so an answer can never arrive for an unknown request.
  const pending = input.requestFiles(request, input.signal);
  input.emit({
    type: 'file_request',
    toolCallId: request.toolCallId,
    requestId: request.requestId,
    server: request.server,
    tool: request.tool,
    inputs: request.inputs,
  });
  const answer = await pending;
  const answered = (action: FileRequestOutcome['action'], sent: AnsweredFile[] = []) =>
    input.emit({
      type: 'file_request_answered',
      toolCallId: request.toolCallId,
      requestId: request.requestId,
      action,
      files: sent,
    });
  if (answer.action === 'cancel') {
    answered('cancel');
    return { ok: false, code: 'E_CANCELLED', message: `The turn was stopped before the user chose a file.` };
  }
  if (answer.action === 'decline') {
    answered('decline');
    const names = inputs.map((i) => `"${i.path[0]}"`).join(', ');
    return {
      ok: false,
      code: 'E_CANCELLED',
      message: `The user declined to provide a file for ${names}: ${where} was not run and received nothing. Do not call it again for this unless the user asks.`,
    };
  }
  // The chat API checked the answer; checked again here, since a file may be gone meanwhile.
  const picked = await pickFileInputs({ fileInputs: inputs, picks: answer.files, files, owner });
  if (!picked.ok) {
    answered('decline');
    return { ok: false, code: picked.error.meta_data.error_code, message: picked.error.results.error };
  }
  answered(
    'accept',
    picked.slots.map((slot) => ({ argument: slot.argument, ...fileView(slot.file) })),
  );
  return { ok: true, fileInputs: answer.files };
}

type AnsweredFile = FileRequestInput['proposed'][number] & { argument: string };

function requestInput(input: FileInput, tool: OfferedTool, proposed: FileRecord[]): FileRequestInput {
  const name = input.path[0] as string;
  const description = tool.fileInputDescriptions.get(name);
  return {
    name,
    ...(description ? { description } : {}),
    ...(input.descriptor.accept ? { accept: input.descriptor.accept } : {}),
    ...(input.descriptor.maxSize === undefined ? {} : { maxSize: input.descriptor.maxSize }),
    multiple: input.multiple,
    required: input.required,
    proposed: proposed.map(fileView),
  };
}

function fileView(file: FileRecord): FileRequestInput['proposed'][number] {
  return { id: file.id, name: file.name, size: file.size, mime: file.mime };
}
