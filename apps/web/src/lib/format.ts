// Human-readable speeds and times for the file list, upload bars and call view (sizes: formatBytes
// in @ferry/contract, the one formatter the CLI shares).
import { formatBytes } from '@ferry/contract';

export function formatSpeed(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) return '';
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** 75 → "1 min 15 s"; for ETAs and expiry. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} days`;
}

/** "expires in 71 h 59 min" / "expired" for deferred files. */
export function describeExpiry(expiresAt: string | null, now: number): string | undefined {
  if (!expiresAt) return undefined;
  const left = (Date.parse(expiresAt) - now) / 1000;
  if (!Number.isFinite(left)) return undefined;
  return left <= 0 ? 'expired' : `expires in ${formatDuration(left)}`;
}

export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
