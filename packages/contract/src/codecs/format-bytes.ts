// The one way Ferry writes a size for people (CLI, web app, error messages): binary multiples
// with their IEC names, so "6.1 KiB" means the same bytes everywhere and agrees with limits that
// are set in MiB.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** 6256 → "6.1 KiB", 1536 → "1.5 KiB", 1048577 → "1 MiB"; two significant decimals at most. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

/** A size with its exact byte count beside it, for limits and refusals: "2.1 MiB (2,202,010 bytes)". */
export function formatBytesExact(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  const rounded = formatBytes(bytes);
  const exact = `${Math.trunc(bytes).toLocaleString('en-US')} bytes`;
  return bytes < 1024 ? exact : `${rounded} (${exact})`;
}
