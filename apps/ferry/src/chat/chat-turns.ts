// The turns running right now, one per conversation at most (a second one would interleave the
// history), so a cancel from another request (or a delete) can stop them. In memory: a turn
// lives on one instance, like the SSE stream that carries it.
export interface RunningTurn {
  owner: string;
  conversationId: string;
  controller: AbortController;
  done: Promise<void>;
}

export interface ChatTurns {
  /** undefined when the conversation already has a running turn. */
  begin(owner: string, conversationId: string): { turn: RunningTurn; end(): void } | undefined;
  isRunning(owner: string, conversationId: string): boolean;
  /** Asks the turn to stop; resolves when it has. false when none was running. */
  cancel(owner: string, conversationId: string): Promise<boolean>;
  /** Stops every turn of one owner (user deletion); resolves when they have stopped. */
  cancelOwner(owner: string): Promise<number>;
  /** Stops every turn (server shutdown). */
  cancelAll(): Promise<void>;
}

export function createChatTurns(): ChatTurns {
  const running = new Map<string, RunningTurn>();
  const key = (owner: string, id: string) => `${owner}\u0000${id}`;
  const stop = async (turns: RunningTurn[]) => {
    for (const turn of turns) turn.controller.abort();
    await Promise.all(turns.map((turn) => turn.done));
    return turns.length;
  };
  return {
    begin(owner, conversationId) {
      const k = key(owner, conversationId);
      if (running.has(k)) return undefined;
      let end = () => {};
      const done = new Promise<void>((resolve) => {
        end = resolve;
      });
      const turn: RunningTurn = { owner, conversationId, controller: new AbortController(), done };
      running.set(k, turn);
      return {
        turn,
        end: () => {
          if (running.get(k) === turn) running.delete(k);
          end();
        },
      };
    },
    isRunning: (owner, conversationId) => running.has(key(owner, conversationId)),
    async cancel(owner, conversationId) {
      const turn = running.get(key(owner, conversationId));
      if (!turn) return false;
      turn.controller.abort();
      await turn.done;
      return true;
    },
    cancelOwner: (owner) => stop([...running.values()].filter((turn) => turn.owner === owner)),
    async cancelAll() {
      await stop([...running.values()]);
    },
  };
}
