// Tool names come from requests: the (server, tool) label pairs are bounded, so calls to made-up
// tool names cannot grow the metrics without end.
import { describe, expect, it } from 'vitest';
import { createAppMetrics, MAX_TOOL_LABELS, OTHER_TOOL } from '../../src/ops/metrics.js';
import { sampleOf } from './prom-text.js';

describe('tool labels', () => {
  it('keep the first MAX_TOOL_LABELS pairs and count later new ones under (other)', async () => {
    const metrics = createAppMetrics({ processMetrics: false });
    for (let i = 0; i < MAX_TOOL_LABELS; i++) {
      expect(metrics.labelsOf('s', `tool-${i}`)).toEqual({ server: 's', tool: `tool-${i}` });
    }
    expect(metrics.labelsOf('s', 'one-more')).toEqual({ server: 's', tool: OTHER_TOOL });
    expect(metrics.labelsOf('t', 'tool-0')).toEqual({ server: 't', tool: OTHER_TOOL });
    // A pair already kept stays itself.
    expect(metrics.labelsOf('s', 'tool-7')).toEqual({ server: 's', tool: 'tool-7' });

    metrics.callStarted();
    metrics.callEnded(metrics.labelsOf('s', 'yet-another'), 'failed', 0.01);
    const text = await metrics.scrape();
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 's', tool: OTHER_TOOL, outcome: 'failed' }),
    ).toBe(1);
    expect(text).not.toContain('yet-another');
    // Without process metrics, only Ferry's own.
    expect(text).not.toContain('process_cpu');
  });
});
