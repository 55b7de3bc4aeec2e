// A kept call as the calls API shows it (CallSummary, @ferry/contract; its schema strips the rest).
import type { CallSummary } from '@ferry/contract';
import type { CallRecord } from './call-registry.js';

export function toCallSummary(record: CallRecord): CallSummary {
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
