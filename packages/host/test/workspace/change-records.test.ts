// The tracker's bookkeeping alone: numbers stand for positions in the hub's event order.
import { describe, expect, it } from 'vitest';
import { ChangeRecords, type ChangeWindow, changedSince } from '../../src/workspace/change-records.js';

const entry = (size: number, mtime = 1, ino = 1) => ({
  size: BigInt(size),
  mtimeNs: BigInt(mtime),
  ino: BigInt(ino),
});

/** What finish() would report, given each candidate's state now. */
function report(records: ChangeRecords, window: ChangeWindow) {
  return records.candidates(window).filter((path) => {
    const now = records.current(path);
    return typeof now === 'object' && changedSince(window.before.get(path) ?? 'unknown', now);
  });
}

describe('ChangeRecords', () => {
  it('a window counts changes between its start and end, against the state at its start', () => {
    const r = new ChangeRecords();
    r.settle('/w/a', entry(1), 0);
    r.settle('/w/b', entry(1), 0);
    r.note('/w/before', 1, 1);
    r.settle('/w/before', entry(1), 1);
    const w = r.openWindow(1);
    w.start = 2;
    r.note('/w/a', 3, 3);
    r.settle('/w/a', entry(2), 3);
    r.note('/w/b', 4, 4); // an event that changed nothing (chmod)
    r.settle('/w/b', entry(1), 4);
    r.note('/w/new', 5, 5);
    r.settle('/w/new', entry(1), 5);
    w.end = 6;
    r.note('/w/late', 7, 7);
    r.settle('/w/late', entry(1), 7);
    expect(r.candidates(w).sort()).toEqual(['/w/a', '/w/b', '/w/new']);
    expect(report(r, w).sort()).toEqual(['/w/a', '/w/new']);
  });

  it("a path changed but not looked at before the start is 'unknown', so any change in the window counts", () => {
    const r = new ChangeRecords();
    r.settle('/w/a', entry(1), 0);
    r.note('/w/a', 1, 1); // changed, lstat still pending when the window starts
    const w = r.openWindow(1);
    w.start = 2;
    r.settle('/w/a', entry(1), 2); // the pending lstat, issued after the start
    r.note('/w/a', 3, 3);
    r.settle('/w/a', entry(1), 3);
    expect(w.before.get('/w/a')).toBe('unknown');
    expect(report(r, w)).toEqual(['/w/a']);
  });

  it('a file found by walking a directory watched right after the start marker counts (c + 0.5)', () => {
    const r = new ChangeRecords();
    const w = r.openWindow(4);
    w.start = 5;
    // The directory's event (3) came before the start; its watch began when the hub was at 5.
    r.note('/w/d/f', 3, 5.5);
    r.settle('/w/d/f', entry(1), 5);
    expect(r.isDirty('/w/d/f')).toBe(false);
    expect(report(r, w)).toEqual(['/w/d/f']);
    // One that was fully walked before the start does not.
    const early = new ChangeRecords();
    const w2 = early.openWindow(9);
    w2.start = 10;
    early.note('/w/d/g', 3, 4.5);
    expect(early.candidates(w2)).toEqual([]);
  });

  it('records moved on after the start keep the state at the start for the window', () => {
    const r = new ChangeRecords();
    r.settle('/w/d/a', entry(1), 0);
    r.settle('/w/b', entry(1), 0);
    const w = r.openWindow(1);
    w.start = 2;
    r.forget('/w/d', 3); // its directory replaced: the record goes
    r.note('/w/d/a', 2, 4.5); // and the walk of the new one finds the same file again
    r.settle('/w/d/a', entry(1), 4);
    expect(w.before.get('/w/d/a')).toEqual(entry(1));
    expect(report(r, w)).toEqual([]);
    expect(r.beforeFor(w, '/w/b')).toEqual(entry(1));
    expect(r.beforeFor(w, '/w/gone')).toBe('absent');
  });

  it('a reliable absence drops the record; closed windows stop counting', () => {
    const r = new ChangeRecords();
    r.note('/w/t', 1, 1);
    expect(r.current('/w/t')).toBe('unknown');
    r.settle('/w/t', undefined, 1);
    expect(r.size).toBe(0);
    const w = r.openWindow(1);
    r.closeWindow(w);
    r.note('/w/x', 2, 2);
    expect(w.touched.size).toBe(0);
    expect(r.openWindows).toBe(0);
  });
});
