// Upload speed over a sliding window: the last few seconds, not the average since the start, so
// the number reacts when the network slows down, without jumping on every progress event.

export interface RateSample {
  at: number;
  loaded: number;
}

const RATE_WINDOW_MS = 3000;

/** Adds a sample and drops the ones older than the window (keeping one to measure from). */
export function addSample(samples: readonly RateSample[], sample: RateSample): RateSample[] {
  const kept = samples.filter((s) => sample.at - s.at <= RATE_WINDOW_MS);
  const older = samples.filter((s) => sample.at - s.at > RATE_WINDOW_MS).at(-1);
  return [...(older ? [older] : []), ...kept, sample];
}

/** Bytes per second over the samples; 0 until two samples are at least 200 ms apart. */
export function bytesPerSecond(samples: readonly RateSample[]): number {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.at - first.at < 200) return 0;
  return ((last.loaded - first.loaded) * 1000) / (last.at - first.at);
}
