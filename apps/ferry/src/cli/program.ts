// The `ferry` command. Client commands talk to a running Ferry over HTTP (--url); `start` runs
// one. Errors print one line on stderr and end with an exit code from exit-codes.ts.
import { Command, CommanderError } from 'commander';
import { addAdminCommand } from './admin-command.js';
import { addCallCommand } from './call-command.js';
import { addCallsCommand } from './calls-command.js';
import { type CliIo, DEFAULT_URL } from './context.js';
import { CliError, EXIT } from './exit-codes.js';
import { addFilesCommand } from './files-command.js';
import { addStartCommand } from './start-command.js';
import { addToolsCommand } from './tools-command.js';

function createProgram(io: CliIo): Command {
  const program = new Command('ferry')
    .description('Ferry, the file-aware MCP host')
    .option('--url <url>', 'the Ferry to talk to (env FERRY_URL)', io.env.FERRY_URL || DEFAULT_URL)
    .option('--user <name>', 'username for a Ferry in proxy mode (env FERRY_USER)', io.env.FERRY_USER)
    .option('--user-header <name>', 'the proxy header carrying it', 'x-forwarded-user')
    .option('--json', 'machine-readable output on stdout', false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  addStartCommand(program, io);
  addFilesCommand(program, io);
  addToolsCommand(program, io);
  addCallCommand(program, io);
  addCallsCommand(program, io);
  addAdminCommand(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  process.exitCode = undefined;
  try {
    await createProgram(io).parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const code = error instanceof CliError ? error.exitCode : EXIT.toolFailed;
    io.stderr.write(`ferry: ${(error as Error).message}\n`);
    return code;
  }
}
