// An x-mcp-file argument as the example servers read it: SEP-2356 makes the keyword advisory, so
// the server parses the data URI and checks it against its descriptor itself (SEP-1303: a
// violation is a tool error, never trusted to the host's check).
import {
  checkFileInput,
  FerryError,
  fileTooLargeError,
  fileTypeRejectedError,
  type McpFileDescriptor,
  parseDataUri,
} from '@ferry/contract';
import { v21Error } from '@ferry/server-kit';

type DataUri = Extract<ReturnType<typeof parseDataUri>, { ok: true }>['value'];
type FileInput = { ok: true; value: DataUri } | { ok: false; refused: ReturnType<typeof v21Error> };

/**
 * An x-mcp-file argument parsed and checked against its descriptor: the data URI, or the §12
 * answer refusing it (too large, or a type the input does not accept). A malformed URI throws.
 * `fileName`: the file's name from a paired argument (SEP-2356 final), checked and reported in
 * place of the data URI's `name=`.
 */
export function readFileInput(
  field: string,
  value: string,
  input: McpFileDescriptor,
  fileName?: string,
): FileInput {
  const uri = dataUriOf(field, value);
  const { mime, byteLength } = uri;
  const name = fileName ?? uri.name;
  const check = checkFileInput({ mime, size: byteLength, ...(name === undefined ? {} : { name }) }, input);
  if (check.ok) return { ok: true, value: uri };
  return {
    ok: false,
    refused:
      check.code === 'E_FILE_TOO_LARGE'
        ? v21Error(
            fileTooLargeError({
              fileSizeBytes: byteLength,
              currentLimitBytes: input.maxSize as number,
              message: check.reason,
            }),
          )
        : v21Error(fileTypeRejectedError({ name: name ?? field, mime, accept: input.accept ?? [] })),
  };
}

/** The data URI in `field`; E_INVALID_INPUT (naming the field) when it is not one. */
export function dataUriOf(field: string, value: string): DataUri {
  const parsed = parseDataUri(value);
  if (!parsed.ok) {
    throw new FerryError('E_INVALID_INPUT', `${field} is not a valid data URI: ${parsed.reason}`, { field });
  }
  return parsed.value;
}
