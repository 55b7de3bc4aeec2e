// Any JSON value as a collapsible tree (tool results, JSON files). Uses <details>/<summary>, so
// it opens and closes with the keyboard and screen readers announce the state for free. Large
// arrays and objects show their first 200 entries per level.
import type { ReactNode } from 'react';

const MAX_ENTRIES = 200;

function preview(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).length}}`;
  return '';
}

function Leaf({ value }: { value: unknown }) {
  if (value === null) return <span className="json-null">null</span>;
  switch (typeof value) {
    case 'string':
      return <span className="json-string">"{value}"</span>;
    case 'number':
      return <span className="json-number">{String(value)}</span>;
    case 'boolean':
      return <span className="json-boolean">{String(value)}</span>;
    default:
      return <span>{String(value)}</span>;
  }
}

function Node({ label, value, depth }: { label: ReactNode; value: unknown; depth: number }) {
  if (value === null || typeof value !== 'object') {
    return (
      <li className="json-row">
        {label !== null && <span className="json-key">{label}: </span>}
        <Leaf value={value} />
      </li>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value as Record<string, unknown>);
  return (
    <li className="json-row">
      <details open={depth < 2}>
        <summary>
          {label !== null && <span className="json-key">{label}</span>}{' '}
          <span className="json-preview">{preview(value)}</span>
        </summary>
        <ul className="json-children">
          {entries.slice(0, MAX_ENTRIES).map(([key, child]) => (
            <Node key={key} label={key} value={child} depth={depth + 1} />
          ))}
          {entries.length > MAX_ENTRIES && (
            <li className="json-row muted">… {entries.length - MAX_ENTRIES} more</li>
          )}
        </ul>
      </details>
    </li>
  );
}

export function JsonTree({ value, label = null }: { value: unknown; label?: string | null }) {
  return (
    <ul className="json-tree">
      <Node label={label} value={value} depth={0} />
    </ul>
  );
}
