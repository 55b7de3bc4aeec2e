// How often the model may run the same failed call again within one turn. v2.1 §1.1/§12: a result
// or error marked `retryable: true` "can be safely retried" (a timeout, a server that was down);
// one that is not would fail the same way or repeat a side effect. So, for one turn:
//   - a call the model asks for again, same tool and same arguments, after it failed retryably,
//     runs once more (the retry);
//   - a third identical attempt, or a second after a failure that was not retryable, is refused
//     to the model with a message saying why, and no tool is called.
// A success forgets the call (asking again is a new operation); a new user turn starts afresh,
// since the user asking again is their decision. Calls the loop rejected itself (unknown tool, bad
// arguments) never reached a tool and are not counted.
import type { ToolCallResponse } from '@ferry/contract';
import type { ModelToolCall } from './model-client.js';

/** Runs of one failed call in a turn: the first attempt plus at most one retry. */
const MAX_ATTEMPTS = 2;

/** The code of a refused repeat, as the model and the chat see it. */
export const RETRY_REFUSED_CODE = 'E_RETRY_LIMIT';

interface Failure {
  attempts: number;
  retryable: boolean;
  code: string;
}

export interface RetryRule {
  /** Why this call may not run again, or undefined when it may. */
  refusal(call: ModelToolCall): string | undefined;
  /** What a call that reached the host answered (undefined: it did not reach it). */
  record(call: ModelToolCall, response: ToolCallResponse | undefined): void;
}

export function createRetryRule(): RetryRule {
  const failures = new Map<string, Failure>();
  return {
    refusal(call) {
      const failure = failures.get(callKey(call));
      if (!failure) return undefined;
      if (!failure.retryable) {
        return `Not run: this exact call (same tool, same arguments) already failed in this turn with ${failure.code}, which is not retryable, so it would fail the same way. Change the arguments or tell the user what went wrong.`;
      }
      if (failure.attempts >= MAX_ATTEMPTS) {
        return `Not run: this exact call (same tool, same arguments) already failed ${failure.attempts} times in this turn (last: ${failure.code}); a retryable failure is retried once. Tell the user what went wrong instead of calling it again.`;
      }
      return undefined;
    },
    record(call, response) {
      if (!response || response.status === 'cancelled') return;
      const key = callKey(call);
      const model = response.forModel;
      if (response.status === 'finished' && !model.isError) {
        failures.delete(key);
        return;
      }
      const attempts = (failures.get(key)?.attempts ?? 0) + 1;
      failures.set(key, {
        attempts,
        retryable: model.error?.retryable ?? response.forUi.retryable ?? false,
        code: model.error?.code ?? 'E_TOOL_ERROR',
      });
    },
  };
}

/** Tool name and arguments; key order does not make two calls different. */
function callKey(call: ModelToolCall): string {
  let args = call.arguments.trim();
  try {
    args = JSON.stringify(sortKeys(JSON.parse(args === '' ? '{}' : args)));
  } catch {
    // Not JSON: the loop rejects it before any tool runs; the raw text is key enough.
  }
  return `${call.name}\u0000${args}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
