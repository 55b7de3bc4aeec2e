// ferry start: runs the server until SIGINT/SIGTERM, then closes everything (the MCP server
// processes included) before exiting.
import type { Command } from 'commander';
import { startServer } from '../server.js';
import type { CliIo } from './context.js';
import { CliError, EXIT } from './exit-codes.js';
import { onInterrupt } from './signals.js';

export function addStartCommand(program: Command, io: CliIo): void {
  program
    .command('start')
    .description('start the Ferry server (default http://127.0.0.1:8787)')
    .option('-p, --port <port>', 'port (default: config server.port, FERRY_PORT or 8787)')
    .option('--host <address>', 'address to listen on (default 127.0.0.1)')
    .option('-c, --config <file>', 'config file (default: FERRY_CONFIG or ./ferry.config.json)')
    .action(async (opts: { port?: string; host?: string; config?: string }) => {
      const port = opts.port === undefined ? undefined : Number(opts.port);
      if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
        throw new CliError(`--port must be a port number, got ${opts.port}`, EXIT.usage);
      }
      const server = await startServer({
        env: io.env,
        ...(opts.config ? { configPath: opts.config } : {}),
        ...(opts.host ? { host: opts.host } : {}),
        ...(port === undefined ? {} : { port }),
      });
      // The handler first: whoever waits for the summary (a script, a test) may stop Ferry the
      // moment it appears, and that must be a graceful stop, not the signal's default death.
      const stopped = new Promise<void>((resolve) => {
        onInterrupt((signal) => {
          io.stderr.write(`\n${signal}: stopping Ferry…\n`);
          server
            .close({ graceMs: server.config.app.server.shutdownGraceSeconds * 1000 })
            .then(resolve, resolve);
        }, EXIT.interrupted);
      });
      for (const line of server.summary) io.stdout.write(`${line}\n`);
      await stopped;
    });
}
