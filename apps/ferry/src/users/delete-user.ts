// User deletion: everything Ferry keeps of a user goes, in an order that leaves nothing behind a
// step that might still write: running calls and chat turns are stopped first (they store files
// and messages), then the workspace and the user's server connections (a connection refreshing a
// token writes it back), then their OAuth credentials (revoked at the authorization server where it
// offers that), My Files (blobs and rows, the user row last) and the conversations. In proxy mode
// the proxy is the authority on who exists: a deleted user who signs in again starts over as a
// new, empty user.
import type { Identity } from '../auth/authenticate.js';
import type { FerryServices } from '../services.js';

export interface UserDeletion {
  username: string;
  /** Calls that were still running and were cancelled. */
  cancelledCalls: number;
  cancelledChatTurns: number;
  deletedFiles: number;
  deletedConversations: number;
  /** false when the user had no workspace on this instance. */
  workspaceRemoved: boolean;
}

export async function deleteUser(services: FerryServices, user: Identity): Promise<UserDeletion> {
  const { calls, chatTurns, sessions, workspaces, files, conversations, authenticator } = services;
  // First: no tool (or client of theirs) reads the user's files through the provider any more.
  services.fileProvider?.tokens.revokeWhere({ username: user.username });
  const running = (await calls.list(user.owner)).filter((record) => record.status === 'running');
  await Promise.all(running.map((record) => calls.cancel(record)));
  const cancelledChatTurns = await chatTurns.cancelOwner(user.owner);
  await Promise.all(running.map((record) => calls.settled(record.callId)));
  sessions.forget(user);
  const workspaceRemoved = await workspaces.remove(user.username);
  // OAuth rows are keyed by username, as the routes and the pool's providers use them.
  await services.remoteAuth?.forgetUser(user.username);
  const deletedFiles = await files.deleteUser(user.owner);
  const deletedConversations = (await conversations?.deleteOwner(user.owner)) ?? 0;
  authenticator.forget(user.username);
  return {
    username: user.username,
    cancelledCalls: running.length,
    cancelledChatTurns,
    deletedFiles,
    deletedConversations,
    workspaceRemoved,
  };
}
