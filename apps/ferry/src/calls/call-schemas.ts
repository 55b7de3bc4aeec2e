// A kept call as the calls API shows it (CallSummary, @ferry/contract; its schema strips the rest).
import type { CallSummary } from '@ferry/contract';
import type { CallSnapshot } from './call-store.js';

export function toCallSummary(record: CallSnapshot): CallSummary {
  return {
    callId: record.callId,
    server: record.server,
    tool: record.tool,
    status: record.status,
    startedAt: record.startedAt.toISOString(),
    finishedAt: record.finishedAt ? record.finishedAt.toISOString() : null,
    lastSeq: record.lastSeq,
  };
}
