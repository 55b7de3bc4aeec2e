// Step 2 (DESIGN "Prepare arguments"): the model's arguments → what the tool receives, never
// trusting the model for identity or file contents.
//   - undeclared arguments are dropped (recorded), `username` only ever comes from Ferry;
//   - filename / filenames / file_names naming a file of this user are handed over in the
//     server's file mode (path | url | data-uri); other values pass through unchanged;
//   - file_data_base64 (beside filename) is filled with the file's base64;
//   - x-mcp-file arguments come only from the files the user picked (`fileInputs`), as data URIs
//     without `name=` (SEP-2356 final) unless the server is set for the earlier draft
//     (`xMcpFileNameParam`); a paired filename argument gets the picked file's name, whatever the
//     model wrote (dropped when nothing was picked).
//   - data-uri file mode (filename/filenames/file_names) keeps `name=`: the argument *was* the name.
// Every check (types, sizes, limits) runs before any file is materialized or encoded, so a call
// that fails here has touched nothing. The transcript shows file names where the tool got
// paths, URLs or base64.
import { type ErrorEnvelope, FerryError, fileTooLargeError } from '@ferry/contract';
import type { FileRecord, FileStore } from '@ferry/storage';
import type { Workspace } from '../workspace/workspaces.js';
import { pickFileInputs } from './pick-file-inputs.js';
import { readFileBase64 } from './read-file-base64.js';
import type { ToolConventions } from './resolve-conventions.js';

export type FileMode = 'path' | 'url' | 'data-uri';

export interface PrepareArgumentsInput {
  conventions: ToolConventions;
  /** As the model (or the tool runner form) sent them. */
  arguments: Record<string, unknown>;
  /** x-mcp-file argument → My Files id(s) the user picked. */
  fileInputs?: Record<string, string | string[]>;
  user: { owner: string; username: string };
  fileMode: FileMode;
  files: FileStore;
  /** Only asked for in path mode. */
  workspace: () => Promise<Workspace>;
  downloadUrl: (fileId: string, token: string) => string;
  /** The user's base64_size_limit_bytes: anything handed over inline must fit. */
  base64LimitBytes: number;
  /** x-mcp-file data URIs carry `name=` (servers of the earlier SEP-2356 draft). @default false */
  xMcpFileNameParam?: boolean;
  signal?: AbortSignal;
}

export interface HandedOver {
  argument: string;
  index?: number;
  fileId: string;
  name: string;
  mode: FileMode | 'base64';
  size: number;
  /** The path or URL the tool got (never base64), so answers can replace it by the name. */
  reference?: string;
}

export interface DroppedArgument {
  argument: string;
  reason: 'undeclared' | 'file_input' | 'injected';
}

export type PreparedArguments =
  | {
      ok: true;
      arguments: Record<string, unknown>;
      transcript: Record<string, unknown>;
      handedOver: HandedOver[];
      dropped: DroppedArgument[];
      warnings: string[];
    }
  | { ok: false; error: ErrorEnvelope; dropped: DroppedArgument[]; warnings: string[] };

/** One value to replace: `args[argument]` or `args[argument][index]`. */
interface Slot {
  argument: string;
  index?: number;
  file: FileRecord;
  mode: HandedOver['mode'];
  /** data-uri: with a `name=` parameter. */
  nameParam: boolean;
}

export async function prepareArguments(input: PrepareArgumentsInput): Promise<PreparedArguments> {
  const { conventions: c, user, files } = input;
  const warnings = [...c.warnings];
  const dropped: DroppedArgument[] = [];
  const fileInputNames = new Set(c.fileInputs.map((fileInput) => fileInput.path[0] as string));
  const pairedNames = new Set(c.fileNameArguments.map((pair) => pair.argument));
  const args: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(input.arguments)) {
    if (fileInputNames.has(key)) dropped.push({ argument: key, reason: 'file_input' });
    else if (pairedNames.has(key)) dropped.push({ argument: key, reason: 'injected' });
    else if (key === 'file_data_base64' && c.fileDataBase64)
      dropped.push({ argument: key, reason: 'injected' });
    else if (key === 'username' && !c.username) dropped.push({ argument: key, reason: 'undeclared' });
    else if (!c.declared.has(key) && !c.allowsUndeclared)
      dropped.push({ argument: key, reason: 'undeclared' });
    else args[key] = value;
  }
  if (c.username) args.username = user.username;

  const fail = (error: ErrorEnvelope): PreparedArguments => ({ ok: false, error, dropped, warnings });
  const slots: Slot[] = [];
  const mode = input.fileMode;
  const lookup = async (name: unknown) =>
    typeof name === 'string' && name !== '' ? files.resolve(user.owner, name) : undefined;

  if (c.filename) {
    const file = await lookup(args.filename);
    // file-injection-pattern: the tool keys on the name and reads the bytes from file_data_base64.
    if (file && c.fileDataBase64)
      slots.push({ argument: 'file_data_base64', file, mode: 'base64', nameParam: false });
    else if (file) slots.push({ argument: 'filename', file, mode, nameParam: true });
  }
  for (const argument of ['filenames', 'file_names'] as const) {
    const value = args[argument];
    if (!(argument === 'filenames' ? c.filenames : c.fileNames) || !Array.isArray(value)) continue;
    // A copy: the slots are filled in place and the caller's request must stay as it was.
    args[argument] = [...value];
    for (const [index, name] of value.entries()) {
      const file = await lookup(name);
      if (file) slots.push({ argument, index, file, mode, nameParam: true });
    }
  }
  const picked = await pickFileInputs({
    fileInputs: c.fileInputs,
    picks: input.fileInputs,
    files,
    owner: user.owner,
  });
  if (!picked.ok) return fail(picked.error);
  const nameParam = input.xMcpFileNameParam === true;
  for (const pick of picked.slots) slots.push({ ...pick, mode: 'data-uri', nameParam });
  // The paired filename argument names the same pick, so the two cannot drift.
  for (const pair of c.fileNameArguments) {
    const pick = picked.slots.find((slot) => slot.argument === pair.fileInput && slot.index === undefined);
    if (pick) args[pair.argument] = pick.file.name;
  }

  // Limits before any work: nothing is materialized or encoded for a call that cannot happen.
  for (const slot of slots) {
    if ((slot.mode === 'data-uri' || slot.mode === 'base64') && slot.file.size > input.base64LimitBytes) {
      return fail(
        fileTooLargeError({
          fileSizeBytes: slot.file.size,
          currentLimitBytes: input.base64LimitBytes,
          message: `${slot.file.name} is too large to hand to the tool inline (${slot.file.size} bytes; the limit is ${input.base64LimitBytes})`,
        }),
      );
    }
  }

  const handedOver: HandedOver[] = [];
  const transcript: Record<string, unknown> = structuredClone(args);
  const done = new Map<string, string>();
  try {
    for (const slot of slots) {
      const { file } = slot;
      const key = `${slot.mode}:${slot.nameParam}:${file.id}`;
      let value = done.get(key);
      if (value === undefined) {
        value = await handOver(input, slot);
        done.set(key, value);
      }
      const isFileInput = fileInputNames.has(slot.argument);
      put(args, slot, value, isFileInput && picked.multiple.has(slot.argument));
      put(transcript, slot, file.name, isFileInput && picked.multiple.has(slot.argument));
      const entry: HandedOver = {
        argument: slot.argument,
        fileId: file.id,
        name: file.name,
        mode: slot.mode,
        size: file.size,
      };
      if (slot.index !== undefined) entry.index = slot.index;
      if (slot.mode === 'path' || slot.mode === 'url') entry.reference = value;
      handedOver.push(entry);
    }
  } catch (error) {
    if (error instanceof FerryError) return fail(error.toEnvelope());
    throw error;
  }
  return { ok: true, arguments: args, transcript, handedOver, dropped, warnings };
}

async function handOver(input: PrepareArgumentsInput, slot: Slot): Promise<string> {
  const { files, user } = input;
  const { file } = slot;
  switch (slot.mode) {
    case 'path': {
      const workspace = await input.workspace();
      return workspace.materializeInput({
        name: file.name,
        fileId: file.id,
        size: file.size,
        open: async () => (await files.get(user.owner, { id: file.id })).stream,
      });
    }
    case 'url':
      return input.downloadUrl(file.id, files.signDownload(user.owner, file.id));
    case 'data-uri':
    case 'base64':
      return readFileBase64({
        files,
        owner: user.owner,
        file,
        limitBytes: input.base64LimitBytes,
        dataUri: slot.mode === 'data-uri',
        nameParam: slot.nameParam,
        signal: input.signal,
      });
  }
}

/** Writes the value into its slot; a multi-file input collects its values into an array. */
function put(target: Record<string, unknown>, slot: Slot, value: string, multiple: boolean): void {
  if (multiple) {
    const list = Array.isArray(target[slot.argument]) ? (target[slot.argument] as unknown[]) : [];
    list[slot.index ?? list.length] = value;
    target[slot.argument] = list;
  } else if (slot.index !== undefined && Array.isArray(target[slot.argument])) {
    (target[slot.argument] as unknown[])[slot.index] = value;
  } else {
    target[slot.argument] = value;
  }
}
