// A tool's meta_data (v2.1 §1.1: "small, structured facts" such as metrics, parameters,
// provenance) as a folded two-column table: one row per key, nested values as compact JSON.
// The runner shows all of it; the chat card shows what the model read (at most 2 KiB, or the
// note that replaced it).

function cellText(value: unknown): string {
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json;
}

export function MetaDataTable({ metaData }: { metaData: Record<string, unknown> }) {
  const entries = Object.entries(metaData);
  if (entries.length === 0) return null;
  return (
    <details className="meta-data" data-testid="meta-data">
      <summary>
        Facts from the tool <span className="muted">(meta_data, {entries.length})</span>
      </summary>
      <table>
        <tbody>
          {entries.map(([key, value]) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td>{cellText(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
