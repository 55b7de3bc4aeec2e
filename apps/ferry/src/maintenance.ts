// Housekeeping while the app runs: idle sessions end (their session-only files go), workspaces of
// users without a live session or a recent call are emptied, settled calls past retention are
// forgotten, and the FileStore sweeps expired files and crash leftovers.
import type { FastifyInstance } from 'fastify';
import type { FerryServices } from './services.js';

/** The FileStore sweep walks the catalog; every 15th tick (15 min at the default) is enough. */
const FILE_SWEEP_EVERY = 15;

export function installMaintenance(app: FastifyInstance, services: FerryServices, intervalMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  let tick = 0;
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  };
  const sweepOnce = async () => {
    try {
      services.calls.sweep();
      await services.sessions.expire();
      // After expiry: a user whose sessions all ended gets their workspace emptied.
      await services.workspaces.sweep(services.sessions.liveUsers());
      if (tick++ % FILE_SWEEP_EVERY === 0) {
        const swept = await services.files.sweep();
        for (const warning of swept.warnings) app.log.warn(warning);
      }
    } catch (error) {
      app.log.error({ err: error }, 'maintenance failed');
    }
  };
  // Once listening, not on ready: a start that fails to bind its port (another Ferry has it) must
  // not have emptied workspaces or swept files on its way out.
  app.addHook('onListen', async () => {
    timer = setInterval(() => void run(), intervalMs);
    timer.unref();
    void run();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    // A sweep under way finishes before the storage it uses is closed after the app.
    await running;
    await services.calls.close();
  });
}
