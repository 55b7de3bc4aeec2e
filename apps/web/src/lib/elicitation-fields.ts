// An elicitation (a tool asking mid-call) as the dialog needs it, and its form fields: those of
// requestedSchema, with the host's list of SEP-2356 x-mcp-file fields turned into file pickers
// (the host may describe them even when the keyword is not on the property itself).
import type { CallEvent } from '@ferry/contract';
import { describeFields, type FieldSpec } from './schema-fields';

/**
 * An `elicitation` call event, as the dialog keeps it until it is answered: a form, or (`mode:
 * 'url'`) a link the user may open.
 */
export type PendingElicitation = Pick<
  Extract<CallEvent, { type: 'elicitation' }>,
  'callId' | 'elicitationId' | 'message' | 'requestedSchema' | 'fileFields' | 'mode' | 'url' | 'server'
>;

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
