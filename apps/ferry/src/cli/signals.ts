// Ctrl-C handling shared by `ferry start` and `ferry call`. The first SIGINT/SIGTERM asks for a
// graceful stop; a second one, a second or more later, exits at once. Copies of one Ctrl-C (the
// terminal signals the whole process group and bin/run-ferry.mjs forwards it too) count once.
const DUPLICATE_WINDOW_MS = 1000;

export function onInterrupt(first: (signal: NodeJS.Signals) => void, forceExitCode: number): () => void {
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAt === undefined) {
      firstAt = Date.now();
      first(signal);
    } else if (Date.now() - firstAt > DUPLICATE_WINDOW_MS) {
      process.exit(forceExitCode);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
