// Housekeeping that one instance does for all (sweeping the shared FileStore: two instances would
// both list the same expired files and crash leftovers and delete each twice). The embedded
// default is one instance: its jobs always run. Scale mode's lock is a Redis key
// (redis-job-lock.ts).

export interface JobLock {
  /**
   * Runs `work` unless some instance ran (or is running) the job within the last `periodMs`: then
   * resolves undefined at once. Work that fails frees the round, so the next instance tries again.
   */
  runOncePer<T>(job: string, periodMs: number, work: () => Promise<T>): Promise<T | undefined>;
}

export const localJobLock: JobLock = {
  runOncePer: (_job, _periodMs, work) => work(),
};
