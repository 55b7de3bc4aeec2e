// Rasterizes a bar chart into an RGBA image: light grid, axes, one bar per value from a zero
// baseline (negative values hang below it in another colour). No text: the HTML report next to
// the chart carries the labels and numbers.
import { createImage, fillRect, type RgbaImage } from './png.js';

export const CHART_COLORS = {
  background: [255, 255, 255],
  grid: [229, 231, 235],
  axis: [55, 65, 81],
  positive: [37, 99, 235],
  negative: [234, 88, 12],
} as const;

export interface BarChartOptions {
  /** @default 640 */
  width?: number;
  /** @default 360 */
  height?: number;
}

export interface BarGeometry {
  /** Left and right edge (right exclusive) and top and bottom edge (bottom exclusive), in pixels. */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

const MARGIN = 24;
const GRID_LINES = 4;

/** The chart and where each bar was drawn (tests probe the pixels inside them). */
export function renderBarChart(
  values: readonly number[],
  options: BarChartOptions = {},
): { image: RgbaImage; bars: BarGeometry[] } {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const image = createImage(width, height, CHART_COLORS.background);
  const plot = { left: MARGIN, right: width - MARGIN, top: MARGIN, bottom: height - MARGIN };
  const high = Math.max(0, ...values);
  const low = Math.min(0, ...values);
  const span = high - low || 1;
  const yOf = (value: number) => plot.bottom - ((value - low) / span) * (plot.bottom - plot.top);

  for (let i = 0; i <= GRID_LINES; i++) {
    const y = Math.round(plot.top + (i * (plot.bottom - plot.top)) / GRID_LINES);
    fillRect(image, plot.left, y, plot.right, y + 1, CHART_COLORS.grid);
  }
  const bars: BarGeometry[] = [];
  const slot = (plot.right - plot.left) / Math.max(1, values.length);
  const barWidth = Math.max(1, Math.floor(slot * 0.7));
  const zero = Math.round(yOf(0));
  values.forEach((value, index) => {
    const x0 = Math.round(plot.left + index * slot + (slot - barWidth) / 2);
    const top = Math.round(yOf(Math.max(0, value)));
    const bottom = Math.round(yOf(Math.min(0, value)));
    // A zero value still gets a 1-pixel bar so each row is visible.
    const geometry = { x0, x1: x0 + barWidth, y0: top, y1: Math.max(bottom, top + 1) };
    fillRect(
      image,
      geometry.x0,
      geometry.y0,
      geometry.x1,
      geometry.y1,
      value < 0 ? CHART_COLORS.negative : CHART_COLORS.positive,
    );
    bars.push(geometry);
  });
  fillRect(image, plot.left - 1, plot.top, plot.left + 1, plot.bottom + 1, CHART_COLORS.axis);
  fillRect(image, plot.left - 1, zero, plot.right, zero + 1, CHART_COLORS.axis);
  return { image, bars };
}
