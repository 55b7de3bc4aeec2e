// When each session was last used, as every instance sees it. An instance knows the sessions its
// own requests touched; in scale mode a browser tab's requests land on any instance, so before one
// ends a session as idle (deleting its session-only files) it must know that no other instance saw
// it since. The embedded default is one instance: its own map (sessions.ts) is the whole truth and
// this seam does nothing. Scale mode's version is redis-session-activity.ts.

export interface SessionActivity {
  /** This instance used the session at `at` (epoch ms). Fire and forget: never rejects. */
  record(key: string, at: number): void;
  /**
   * True when no instance used the session after `cutoff` (epoch ms), and then forgets it; false:
   * another instance did, so it stays. Two instances may both end one idle session: ending is
   * idempotent (FileStore.endSession deletes its files once).
   */
  claimIdle(key: string, cutoff: number): Promise<boolean>;
  /** The session ended (DELETE /api/sessions/:id, user deletion). */
  forget(key: string): Promise<void>;
  /** Drops what is known of sessions unused since `cutoff`: they are idle whoever looks. */
  prune(cutoff: number): Promise<void>;
}

/** The embedded default: nothing to share, every idle session of this instance's is idle. */
export const localSessionActivity: SessionActivity = {
  record: () => {},
  claimIdle: async () => true,
  forget: async () => {},
  prune: async () => {},
};
