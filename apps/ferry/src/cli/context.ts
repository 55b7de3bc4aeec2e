// What every client command shares: the global options, the API client and how to print.
import type { Command } from 'commander';
import { type ApiClient, createApiClient } from './api-client.js';

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export interface GlobalOptions {
  url: string;
  user?: string;
  userHeader: string;
  json: boolean;
}

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** Where answers to a tool's questions are read. @default process.stdin */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface CommandContext {
  options: GlobalOptions;
  client: ApiClient;
  io: CliIo;
  print(line?: string): void;
  printJson(value: unknown): void;
  note(line: string): void;
}

export function contextOf(command: Command, io: CliIo, session?: string): CommandContext {
  const options = command.optsWithGlobals() as GlobalOptions;
  return {
    options,
    client: createApiClient({
      url: options.url,
      // The secret comes from the environment only: a command-line flag would show in `ps`.
      ...(options.user
        ? {
            user: options.user,
            userHeader: options.userHeader,
            ...(io.env.FERRY_PROXY_SECRET ? { proxySecret: io.env.FERRY_PROXY_SECRET } : {}),
            ...(io.env.FERRY_PROXY_SECRET_HEADER
              ? { proxySecretHeader: io.env.FERRY_PROXY_SECRET_HEADER }
              : {}),
          }
        : {}),
      ...(session ? { session } : {}),
    }),
    io,
    print: (line = '') => io.stdout.write(`${line}\n`),
    printJson: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (line) => io.stderr.write(`${line}\n`),
  };
}

/** Fixed-width columns for people; --json is for scripts. */
export function table(rows: string[][]): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
