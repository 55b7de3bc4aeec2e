// What one (server, user) connection gets besides the server's config, asked for once per
// connection just before it opens, and given back once it has closed: today the user's file
// provider (a token minted for this connection, its URL, the user's socket). Revoking at close,
// per connection, means a server process that exits takes its token with it, while the next
// connection of the same (server, user) already holds a new one.
import type { FileProviderPlaceholder } from '@ferry/contract';
import type { LaunchSocket } from '@ferry/sandbox';
import type { ServerConfig } from '../servers/server-config.js';

export interface ConnectionExtras {
  /** Values of the config's placeholders besides `{{user}}` (args, env values, header values). */
  placeholders: { readonly [name in FileProviderPlaceholder]?: string };
  /** Variables a local server's process gets (after its configured env). */
  env: Readonly<Record<string, string>>;
  /** Host sockets a local server may connect to (bound into its sandbox). */
  sockets: readonly LaunchSocket[];
  /**
   * When (epoch ms) the pool stops handing this connection out and opens a new one: before what
   * the extras carry expires (a token), with room for a call started just before. @default never
   */
  renewAt?: number;
  /** Called once, after the connection closed or failed to open. */
  release(): void;
}

/** Extras for a connection about to open; undefined: none (the config alone). */
export type ConnectionExtrasSource = (
  server: ServerConfig,
  user: string,
) => ConnectionExtras | undefined | Promise<ConnectionExtras | undefined>;
