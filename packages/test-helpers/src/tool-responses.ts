// A call's answer as tests write one by hand: the smallest valid ToolCallResponse (nothing for the
// model, nothing stored, no canvas), with the parts a test cares about laid over it.
import type { ToolCallResponse } from '@ferry/contract';

export function toolCallResponse(
  callId: string,
  status: ToolCallResponse['status'] = 'finished',
  parts: {
    forModel?: Partial<ToolCallResponse['forModel']>;
    forUi?: Partial<ToolCallResponse['forUi']>;
  } = {},
): ToolCallResponse {
  return {
    callId,
    status,
    forModel: { results: {}, files: [], isError: false, ...parts.forModel },
    forUi: {
      display: { openCanvas: false, storageAction: 'store' },
      files: [],
      rejected: [],
      unstored: [],
      warnings: [],
      ...parts.forUi,
    },
  };
}
