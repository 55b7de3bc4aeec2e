// SEP-2356 x-mcp-file arguments: filled only from the files the user (or a host rule) picked,
// by My Files id, and checked against the tool's accept/maxSize before the call (the SEP makes
// them advisory for servers; Ferry enforces them so a wrong file never leaves the host).
import {
  checkFileInput,
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  type FileInput,
  fileNotFoundError,
  fileTooLargeError,
  fileTypeRejectedError,
} from '@ferry/contract';
import type { FileRecord, FileStore } from '@ferry/storage';

export interface PickedSlot {
  argument: string;
  /** Set for multi-file inputs. */
  index?: number;
  file: FileRecord;
}

export type PickResult =
  | { ok: true; slots: PickedSlot[]; multiple: ReadonlySet<string> }
  | { ok: false; error: ErrorEnvelope };

export async function pickFileInputs(options: {
  fileInputs: readonly FileInput[];
  picks: Record<string, string | string[]> | undefined;
  files: Pick<FileStore, 'stat'>;
  owner: string;
}): Promise<PickResult> {
  const slots: PickedSlot[] = [];
  const multiple = new Set(options.fileInputs.filter((i) => i.multiple).map((i) => i.path[0] as string));
  for (const [argument, picked] of Object.entries(options.picks ?? {})) {
    const input = options.fileInputs.find((candidate) => candidate.path[0] === argument);
    if (!input) {
      return fail('E_INVALID_INPUT', `${argument} is not a file input of this tool`, { field: argument });
    }
    const ids = Array.isArray(picked) ? picked : [picked];
    if (!input.multiple && ids.length > 1) {
      return fail('E_INVALID_INPUT', `${argument} takes one file, ${ids.length} were picked`, {
        field: argument,
      });
    }
    for (const [index, id] of ids.entries()) {
      if (typeof id !== 'string' || id === '') {
        return fail('E_INVALID_INPUT', `${argument}: a file id is required`, { field: argument });
      }
      let file: FileRecord;
      try {
        file = await options.files.stat(options.owner, { id });
      } catch (error) {
        if (error instanceof FerryError && error.code === 'E_FILE_NOT_FOUND') {
          return { ok: false, error: fileNotFoundError({ name: id }) };
        }
        throw error;
      }
      const check = checkFileInput({ mime: file.mime, name: file.name, size: file.size }, input.descriptor);
      if (!check.ok && check.code === 'E_FILE_TYPE_REJECTED') {
        const accept = input.descriptor.accept ?? [];
        return { ok: false, error: fileTypeRejectedError({ name: file.name, mime: file.mime, accept }) };
      }
      if (!check.ok) {
        const limit = input.descriptor.maxSize ?? 0;
        // SEP-2356: the slot carries only files that fit inline; a server that takes larger ones
        // "SHOULD obtain them via URL-mode elicitation" during the call, which Ferry shows as a link.
        return {
          ok: false,
          error: fileTooLargeError({
            fileSizeBytes: file.size,
            currentLimitBytes: limit,
            message: `${check.reason} (the tool's maxSize for ${argument}; a tool that takes larger files asks for them with an upload link during the call)`,
          }),
        };
      }
      slots.push(input.multiple ? { argument, index, file } : { argument, file });
    }
  }
  return { ok: true, slots, multiple };
}

function fail(code: 'E_INVALID_INPUT', message: string, details: Record<string, unknown>): PickResult {
  return { ok: false, error: errorEnvelope(code, details, message) };
}
