// Housekeeping while the app runs. Every tick (a minute by default): idle sessions end (their
// session-only files go), workspaces of users without a live session or a recent call are
// emptied, settled calls past retention are forgotten. Every maintenance.fileSweepMinutes (15 by
// default) the FileStore reclaims the space of expired files and crash leftovers; expiry itself
// does not wait for that sweep, since every read of the catalog already leaves expired files out.
import type { SweepResult } from '@ferry/storage';
import type { FastifyInstance } from 'fastify';
import type { FerryServices } from './services.js';
import { type JobLock, localJobLock } from './shared/job-lock.js';

type Job = 'tick' | 'files';

export function installMaintenance(
  app: FastifyInstance,
  services: FerryServices,
  intervalMs: number,
  /** Scale mode: the FileStore sweep is one instance's per period, whichever comes first. */
  jobLock: JobLock = localJobLock,
): void {
  const fileSweepMs = services.config.maintenance.fileSweepMinutes * 60_000;
  const timers: NodeJS.Timeout[] = [];
  // One job at a time (a session ending and the sweep both delete files), each kind at most once
  // waiting: a slow sweep does not pile up ticks behind it.
  let queue: Promise<void> = Promise.resolve();
  const queued = new Set<Job>();
  const enqueue = (job: Job, step: () => Promise<void>) => {
    if (queued.has(job)) return;
    queued.add(job);
    queue = queue.then(async () => {
      try {
        await step();
      } catch (error) {
        app.log.error({ err: error }, `maintenance failed (${job})`);
      } finally {
        queued.delete(job);
      }
    });
  };
  const tick = () =>
    enqueue('tick', async () => {
      await services.calls.sweep();
      await services.sessions.expire();
      // After expiry: a user whose sessions all ended gets their workspace emptied.
      await services.workspaces.sweep(services.sessions.liveUsers());
    });
  // The first sweep, at listen, is the startup recovery: it aborts multipart uploads and removes
  // temp files that a crash left older than the grace period, and says so in one line. Rows and
  // blobs that disagree otherwise are `ferry admin fsck --repair`'s, never a start's.
  let startup = true;
  const sweepFiles = () =>
    enqueue('files', async () => {
      const first = startup;
      startup = false;
      const swept = await jobLock.runOncePer('files-sweep', fileSweepMs, () => services.files.sweep());
      if (!swept) return;
      for (const warning of swept.warnings) app.log.warn(warning);
      if (first) logStartupRecovery(app, swept);
    });
  // Once listening, not on ready: a start that fails to bind its port (another Ferry has it) must
  // not have emptied workspaces or swept files on its way out.
  app.addHook('onListen', async () => {
    timers.push(setInterval(tick, intervalMs), setInterval(sweepFiles, fileSweepMs));
    for (const timer of timers) timer.unref();
    tick();
    sweepFiles();
  });
  app.addHook('onClose', async () => {
    for (const timer of timers) clearInterval(timer);
    // A job under way finishes before the storage it uses is closed after the app.
    await queue;
    await services.calls.close();
  });
}

/** A warning when a crash left something behind (worth an operator's look), else info. */
function logStartupRecovery(app: FastifyInstance, swept: SweepResult): void {
  const { partials, pending, expired } = swept;
  const line =
    `startup recovery: ${partials} partial upload(s) removed (temp files, unfinished multipart uploads), ` +
    `${pending} interrupted upload row(s) removed, ${expired} expired file(s) reclaimed`;
  const level = partials + pending > 0 ? 'warn' : 'info';
  app.log[level]({ partials, pending, expired }, line);
}
