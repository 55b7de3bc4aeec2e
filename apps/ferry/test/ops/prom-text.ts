// Reads the Prometheus text format back into values, for assertions on GET /metrics.

/** One sample's value by name and labels (any label order); undefined when it is absent. */
export function sampleOf(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = labelKey(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    if (labelKey(parseLabels(match[2] ?? '')) === wanted) return Number(match[3]);
  }
  return undefined;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) =>
      c === 'n' ? '\n' : c,
    );
  }
  return labels;
}

function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}
