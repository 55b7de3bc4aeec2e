// Which call a file-provider callback belongs to. A callback carries only its token's grant: the
// user and the server whose connection the token was minted for. MCP says nothing about which of
// that connection's running calls asked, so it goes to the most recent one (usually the only one);
// with no call running (a server's background work) it is only audited.
import type { CallEventBody, FileProviderCallEvent } from '@ferry/contract';
import type { ProviderCallbackEvent } from './provider-types.js';

/** A running call, as the pipeline registers it. */
export interface RunningCall {
  username: string;
  server: string;
  /** Adds an event to the call's own stream (stamped with its id and seq). */
  emit(body: CallEventBody): void;
}

export interface CallbackAttribution {
  /** Registers a running call; the returned function ends it. */
  track(call: RunningCall): () => void;
  /** Hands a callback to its call; false when it has none (no server, or none running). */
  attribute(event: ProviderCallbackEvent): boolean;
}

export function createCallbackAttribution(): CallbackAttribution {
  /** Running calls per (username, server), oldest first. */
  const running = new Map<string, RunningCall[]>();
  const keyOf = (username: string, server: string) => `${server}\n${username}`;
  return {
    track(call) {
      const key = keyOf(call.username, call.server);
      const list = running.get(key) ?? [];
      list.push(call);
      running.set(key, list);
      return () => {
        const index = list.indexOf(call);
        if (index !== -1) list.splice(index, 1);
        if (list.length === 0 && running.get(key) === list) running.delete(key);
      };
    },
    attribute(event) {
      if (event.server === undefined) return false;
      const call = running.get(keyOf(event.username, event.server))?.at(-1);
      if (call === undefined) return false;
      call.emit(callEventOf(event));
      return true;
    },
  };
}

/** The call event of a callback: what it did, never what it read. */
export function callEventOf(event: ProviderCallbackEvent): FileProviderCallEvent {
  return {
    type: 'file_provider',
    tool: event.tool,
    ...(event.path !== undefined && { path: event.path }),
    ok: event.ok,
    ...(event.errorType !== undefined && { errorType: event.errorType }),
    ...(event.bytes !== undefined && { bytes: event.bytes }),
    ...(event.count !== undefined && { count: event.count }),
    durationMs: event.durationMs,
  };
}
