// User deletion: everything Ferry keeps of a user goes, in an order that leaves nothing behind a
// step that might still write: running calls and chat turns are stopped first (they store files
// and messages), then the workspace and the user's server connections (a connection refreshing a
// token writes it back), then their OAuth credentials (revoked at the authorization server where it
// offers that), My Files (blobs and rows, the user row last), the conversations and the user's
// event stream. In proxy mode the proxy is the authority on who exists: a deleted user who signs in
// again starts over as a new, empty user.
//
// What lives in an instance's memory (running calls and turns, sessions, the workspace, provider
// tokens, the username -> owner cache) is dropped by every instance itself: the deleting instance
// broadcasts `user.deleting` (each stops its own and answers with what it did) before the shared
// deletions, and `user.deleted` after the user row is gone, so that no instance keeps (or, from a
// request in between, caches again) the old owner id. The embedded default's bus is itself.
import { z } from 'zod';
import type { Identity } from '../auth/authenticate.js';
import type { FerryServices } from '../services.js';

export interface UserDeletion {
  username: string;
  /** Calls that were still running and were cancelled, on every instance. */
  cancelledCalls: number;
  cancelledChatTurns: number;
  deletedFiles: number;
  deletedConversations: number;
  /** false when the user had no workspace on any instance. */
  workspaceRemoved: boolean;
}

const USER_DELETING = 'user.deleting';
const USER_DELETED = 'user.deleted';
/** Stopping waits for the user's calls and turns to settle: longer than a bus request's default. */
const STOP_TIMEOUT_MS = 60_000;

const UserPayload = z.object({ username: z.string().min(1).max(200), owner: z.string().min(1).max(200) });
const StoppedHere = z.object({
  cancelledCalls: z.number().int().nonnegative(),
  cancelledChatTurns: z.number().int().nonnegative(),
  workspaceRemoved: z.boolean(),
});
type StoppedHere = z.infer<typeof StoppedHere>;

/** Registers this instance's part of every user deletion, wherever it was asked for. */
export function handleUserDeletions(services: FerryServices): void {
  services.bus.handle(USER_DELETING, async (payload) => stopHere(services, UserPayload.parse(payload)));
  services.bus.handle(USER_DELETED, async (payload) => {
    services.authenticator.forget(UserPayload.parse(payload).username);
    return {};
  });
}

async function stopHere(services: FerryServices, user: Identity): Promise<StoppedHere> {
  // First: no tool (or client of theirs) reads the user's files through the provider any more.
  services.fileProvider?.tokens.revokeWhere({ username: user.username });
  // The calls are asked to stop at once; the turns (which may be waiting on them) after.
  const calls = services.calls.cancelOwnerHere(user.owner);
  const cancelledChatTurns = await services.chatTurns.cancelOwner(user.owner);
  const cancelledCalls = await calls;
  services.sessions.forget(user);
  const workspaceRemoved = await services.workspaces.remove(user.username);
  return { cancelledCalls, cancelledChatTurns, workspaceRemoved };
}

export async function deleteUser(services: FerryServices, user: Identity): Promise<UserDeletion> {
  const { files, conversations, bus } = services;
  const payload = { username: user.username, owner: user.owner };
  // An instance that does not answer fails the deletion (nothing shared was deleted yet): retry.
  const stopped = (await bus.broadcast<unknown>(USER_DELETING, payload, STOP_TIMEOUT_MS)).map((answer) =>
    StoppedHere.parse(answer),
  );
  // OAuth rows are keyed by username, as the routes and the pool's providers use them.
  await services.remoteAuth?.forgetUser(user.username);
  const deletedFiles = await files.deleteUser(user.owner);
  const deletedConversations = (await conversations?.deleteOwner(user.owner)) ?? 0;
  await services.userEvents.forget(user.owner);
  await bus.broadcast(USER_DELETED, payload);
  return {
    username: user.username,
    cancelledCalls: stopped.reduce((sum, part) => sum + part.cancelledCalls, 0),
    cancelledChatTurns: stopped.reduce((sum, part) => sum + part.cancelledChatTurns, 0),
    deletedFiles,
    deletedConversations,
    workspaceRemoved: stopped.some((part) => part.workspaceRemoved),
  };
}
