// Messages an MCP App asked to add to the chat (`ui/message`) and the user approved: held here
// until the chat's composer takes them (the chat panel loads lazily, maybe after the approval).
// The user still sends it: the model sees nothing the user has not seen in the composer.
import { useSyncExternalStore } from 'react';

export interface ChatDraft {
  id: number;
  text: string;
}

let pending: ChatDraft | null = null;
let nextId = 1;
const listeners = new Set<() => void>();

export function offerChatDraft(text: string): void {
  pending = { id: nextId++, text: pending ? `${pending.text}\n${text}` : text };
  for (const listener of listeners) listener();
}

/** Hands the pending draft over once: the composer calls it when it has taken the text. */
export function takeChatDraft(id: number): void {
  if (pending?.id !== id) return;
  pending = null;
  for (const listener of listeners) listener();
}

export function useChatDraft(): ChatDraft | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => pending,
  );
}
