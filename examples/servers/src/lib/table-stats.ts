// Column statistics gathered row by row, so a report over a large CSV needs memory for the
// statistics only. A column is numeric when every non-empty value in it is a finite number.

export interface ColumnStats {
  name: string;
  numeric: boolean;
  /** Non-empty values. */
  count: number;
  min?: number;
  max?: number;
  sum?: number;
  mean?: number;
}

interface Accumulator {
  name: string;
  numeric: boolean;
  count: number;
  min: number;
  max: number;
  sum: number;
}

export class TableStats {
  #rows = 0;
  readonly #columns: Accumulator[];

  constructor(header: readonly string[]) {
    this.#columns = header.map((name) => ({
      name,
      numeric: true,
      count: 0,
      min: Number.POSITIVE_INFINITY,
      max: Number.NEGATIVE_INFINITY,
      sum: 0,
    }));
  }

  get rows(): number {
    return this.#rows;
  }

  add(fields: readonly string[]): void {
    this.#rows++;
    this.#columns.forEach((column, index) => {
      const raw = (fields[index] ?? '').trim();
      if (raw === '') return;
      column.count++;
      const value = parseNumber(raw);
      if (value === undefined) {
        column.numeric = false;
        return;
      }
      column.min = Math.min(column.min, value);
      column.max = Math.max(column.max, value);
      column.sum += value;
    });
  }

  columns(): ColumnStats[] {
    return this.#columns.map((column) => {
      const numeric = column.numeric && column.count > 0;
      if (!numeric) return { name: column.name, numeric, count: column.count };
      return {
        name: column.name,
        numeric,
        count: column.count,
        min: column.min,
        max: column.max,
        sum: column.sum,
        mean: column.sum / column.count,
      };
    });
  }

  /** Index of the first numeric column, or undefined when there is none. */
  firstNumericColumn(): number | undefined {
    const index = this.columns().findIndex((column) => column.numeric);
    return index === -1 ? undefined : index;
  }
}

/** A decimal number as people write it in CSVs (`12`, `-3.5`, `1e6`); hex and `Infinity` are text. */
export function parseNumber(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
