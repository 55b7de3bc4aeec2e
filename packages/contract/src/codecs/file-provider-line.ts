// Zod-free on purpose: the web app's first screen imports it (apps/web/test/bundle-budget.test.ts).
import type { FileProviderCallEvent } from '../wire/call-events.js';
import { formatBytes } from './format-bytes.js';

/**
 * One `file_provider` event as the web app and the CLI show it: what the tool asked, for which
 * path, and how it went, e.g. "read_file /tmp/alice/report.txt · 12 KiB · 4 ms" or
 * "list_directory /tmp/alice/src · PermissionError · 1 ms". The outcome is in the words.
 */
export function fileProviderLine(event: Omit<FileProviderCallEvent, 'type'>): string {
  const parts = [event.path ? `${event.tool} ${event.path}` : event.tool];
  if (!event.ok) parts.push(event.errorType ?? 'failed');
  else {
    if (event.bytes !== undefined) parts.push(formatBytes(event.bytes));
    if (event.count !== undefined) parts.push(`${event.count} ${event.count === 1 ? 'entry' : 'entries'}`);
  }
  parts.push(`${Math.round(event.durationMs)} ms`);
  return parts.join(' · ');
}
