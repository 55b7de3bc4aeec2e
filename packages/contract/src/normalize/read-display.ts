// Reads `display` (v2 §1, v2.1 §8.1) field by field: a bad field is dropped with a warning and the
// others still apply. `primary_file` is kept only when it names a file of this outcome.
import type { FileCollector } from './collect-files.js';
import { DisplayFieldSchemas, describeIssues } from './schemas.js';
import type { DisplayHints } from './tool-outcome.js';

export function readDisplay(display: unknown, collector: FileCollector, warnings: string[]): DisplayHints {
  const hints: DisplayHints = { openCanvas: false, storageAction: 'store' };
  if (display === undefined) return hints;
  if (typeof display !== 'object' || display === null || Array.isArray(display)) {
    warnings.push('display is not an object; ignored');
    return hints;
  }
  const raw = display as Record<string, unknown>;
  const field = <K extends keyof typeof DisplayFieldSchemas>(key: K) => {
    if (raw[key] === undefined) return undefined;
    const parsed = DisplayFieldSchemas[key].safeParse(raw[key]);
    if (parsed.success) return parsed.data as ReturnType<(typeof DisplayFieldSchemas)[K]['parse']>;
    warnings.push(`display.${key} ignored: ${describeIssues(parsed.error)}`);
    return undefined;
  };

  const storageAction = field('storage_action');
  if (storageAction) hints.storageAction = storageAction;
  hints.openCanvas = field('open_canvas') === true || storageAction === 'store_and_open';
  const primary = field('primary_file');
  if (primary !== undefined) {
    const name = collector.resolveName(primary);
    if (name) hints.primaryFile = name;
    else warnings.push(`display.primary_file ${JSON.stringify(primary)} names no returned file; ignored`);
  }
  const mode = field('mode');
  if (mode) hints.mode = mode;
  const viewerHint = field('viewer_hint');
  if (viewerHint) hints.viewerHint = viewerHint;
  const categoryHint = field('category_hint');
  if (categoryHint) hints.categoryHint = categoryHint;
  const notification = field('notification');
  if (notification) hints.notification = notification;
  return hints;
}
