// Which arguments of a tool Ferry fills or rewrites (DESIGN pipeline step 2), so a client can hide
// them from forms and from the model. The rules are the host's own (resolveConventions), so the
// API can never disagree with what the pipeline does: `username` and `file_data_base64` (beside
// `filename`) are filled by the host; `filename`/`filenames`/`file_names` take names from My Files;
// `x-mcp-file` properties take files the user picks (fileInputs), never text, and the filename
// argument paired with one (SEP-2356) is filled by the host from that pick.
import { INJECTED_MARK, type InjectedParam, type ToolFileInput } from '@ferry/contract';
import { resolveConventions } from '@ferry/host';

/** The mark on each injected property of an inputSchema (the contract's, as the Tool schema says). */
export { INJECTED_MARK };

export function describeInjected(inputSchema: unknown): {
  injected: InjectedParam[];
  fileInputs: ToolFileInput[];
  inputSchema: Record<string, unknown>;
} {
  const schema = isObject(inputSchema) ? inputSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const conventions = resolveConventions(schema);
  const inputs = conventions.fileInputs;

  const injected: InjectedParam[] = [];
  if (conventions.username)
    injected.push({ name: 'username', kind: 'username', input: 'host', hiddenFromModel: true });
  if (conventions.filename) {
    injected.push({ name: 'filename', kind: 'filename', input: 'file-name', hiddenFromModel: false });
    if (conventions.fileDataBase64) {
      injected.push({
        name: 'file_data_base64',
        kind: 'file_data_base64',
        input: 'host',
        hiddenFromModel: true,
      });
    }
  }
  if (conventions.filenames)
    injected.push({ name: 'filenames', kind: 'filenames', input: 'file-names', hiddenFromModel: false });
  if (conventions.fileNames)
    injected.push({ name: 'file_names', kind: 'file_names', input: 'file-names', hiddenFromModel: false });
  for (const input of inputs) {
    injected.push({
      name: input.path[0] as string,
      kind: 'x-mcp-file',
      input: 'file-picker',
      hiddenFromModel: true,
    });
  }
  for (const pair of conventions.fileNameArguments) {
    injected.push({ name: pair.argument, kind: 'x-mcp-file-name', input: 'host', hiddenFromModel: true });
  }

  const marked: Record<string, unknown> = { ...properties };
  for (const param of injected) {
    const property = properties[param.name];
    if (isObject(property)) marked[param.name] = { ...property, [INJECTED_MARK]: param.kind };
  }
  return {
    injected,
    fileInputs: inputs.map((input) => ({
      name: input.path[0] as string,
      multiple: input.multiple,
      required: input.required,
      ...(input.descriptor.accept ? { accept: [...input.descriptor.accept] } : {}),
      ...(input.descriptor.maxSize === undefined ? {} : { maxSize: input.descriptor.maxSize }),
    })),
    inputSchema: { ...schema, properties: marked },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
