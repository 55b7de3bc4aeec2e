// Where a scroller must scroll so an item inside it is fully in view (the active canvas tab in a
// strip narrower than its tabs). Positions are in the scroller's content coordinates; the item
// keeps `margin` pixels from the edge it is scrolled to. Pure, so it is unit-tested.
export function revealScroll(current: number, view: number, start: number, end: number, margin = 0): number {
  if (start - margin < current) return Math.max(0, start - margin);
  if (end + margin > current + view) {
    // An item wider than the view shows its start.
    return Math.max(0, Math.min(start - margin, end + margin - view));
  }
  return current;
}
