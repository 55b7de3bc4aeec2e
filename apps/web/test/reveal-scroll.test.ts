import { describe, expect, it } from 'vitest';
import { revealScroll } from '../src/lib/reveal-scroll';

describe('revealScroll', () => {
  // A 300 px wide strip scrolled to 100: it shows 100..400.
  it('leaves an item in view alone', () => {
    expect(revealScroll(100, 300, 150, 250)).toBe(100);
  });

  it('scrolls right until the item ends at the edge (with the margin)', () => {
    expect(revealScroll(100, 300, 450, 600)).toBe(300);
    expect(revealScroll(100, 300, 450, 600, 8)).toBe(308);
  });

  it('scrolls left to the item start (with the margin, never below 0)', () => {
    expect(revealScroll(100, 300, 40, 120)).toBe(40);
    expect(revealScroll(100, 300, 40, 120, 8)).toBe(32);
    expect(revealScroll(100, 300, 4, 120, 8)).toBe(0);
  });

  it('shows the start of an item wider than the view', () => {
    expect(revealScroll(0, 300, 500, 1000)).toBe(500);
  });
});
