// Shared by the benchmarks: timing, RSS sampling and the median of repeated runs.
export const MIB = 1024 * 1024;

/** Runs `fn` and returns its wall time in milliseconds. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Peak RSS growth over the RSS when `fn` starts, sampled every 5 ms while it runs. No GC is forced
 * first: after a forced full GC, V8 lowered its external-memory limit and every later 1 GiB stream
 * loop ran about 3x slower (measured here), which would falsify the timings next to it.
 */
export async function withRssPeak<T>(fn: () => Promise<T>): Promise<{ value: T; rssGrowthBytes: number }> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, rssGrowthBytes: peak - baseline };
  } finally {
    clearInterval(timer);
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
