// An elicitation (a tool asking mid-call) as the dialog needs it, and its form fields: those of
// requestedSchema, with the host's list of SEP-2356 x-mcp-file fields turned into file pickers
// (the host may describe them even when the keyword is not on the property itself).
import { describeFields, type FieldSpec } from './schema-fields';

export interface PendingElicitation {
  callId: string;
  elicitationId: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  fileFields: { name: string; required: boolean; accept?: string[]; maxSize?: number }[];
}

export function elicitationFields(request: PendingElicitation): FieldSpec[] {
  return describeFields(request.requestedSchema).map((field) => {
    const file = request.fileFields.find((f) => f.name === field.name);
    if (!file) return field;
    return {
      ...field,
      kind: 'file-picker' as const,
      multiple: field.multiple ?? false,
      required: file.required || field.required,
      ...(file.accept ? { accept: file.accept } : {}),
      ...(file.maxSize === undefined ? {} : { maxSize: file.maxSize }),
    };
  });
}
