/**
 * A station's rows as columns: the period ordinal of each row and, per asked
 * type, its value. The archive fills them straight from the decoded column
 * chunks and the answers read them with one cursor per station, so no row
 * object, no period key and no map entry is made per row before the answer's
 * own. Measured on the scale bench's cold 10-station hourly year (87,600
 * rows) in the engine Worker: rows as objects in a map by key took 190 ms of
 * row assembly and 310 ms of garbage collection.
 */

/** Rows of one station: ordinals ascending and unique; per asked type (in the order asked), the value of each row, NaN where there is none. */
export interface StationRows {
  /** Period ordinal of each row (contract/periods.ts: hours, days or months since 1970-01, UTC). */
  readonly at: Float64Array;
  /** Per asked type, in the order asked: one value per row, NaN where the row has none. */
  readonly values: readonly Float64Array[];
}

/** Rows of `types` types with no row. */
export function noRows(types: number): StationRows {
  return { at: new Float64Array(0), values: Array.from({ length: types }, () => new Float64Array(0)) };
}

/** A row's value as answers write it: null where there is none. */
export function valueOrNull(v: number): number | null {
  return Number.isNaN(v) ? null : v;
}

/**
 * The rows of decoded row groups whose period lies in `lo`…`hi`: each group is its period
 * ordinals (NaN: a row with no period) then the file's value columns; `columnOf[t]` is the asked
 * type t's column among those (-1: the file has none, so NaN). Rows keep the groups' order.
 * A plain function, not inside the async reader: V8 optimizes its loops there late or not at all,
 * and a cold hourly year runs them over 100,000 rows.
 */
export function rowsInRange(
  groups: readonly (readonly Float64Array[])[],
  columnOf: readonly number[],
  lo: number,
  hi: number,
): StationRows {
  // Counted first, so the columns are allocated once at their size (NaN ordinals fail both tests).
  let n = 0;
  for (const group of groups) {
    const times = group[0]!;
    for (let i = 0; i < times.length; i++) if (times[i]! >= lo && times[i]! <= hi) n++;
  }
  const at = new Float64Array(n);
  const values = columnOf.map(() => new Float64Array(n));
  let k0 = 0;
  for (const group of groups) {
    const times = group[0]!;
    let k = k0;
    for (let i = 0; i < times.length; i++) {
      const o = times[i]!;
      if (o >= lo && o <= hi) at[k++] = o;
    }
    // One type at a time: each pass reads one column and writes one; a group wholly in range is
    // copied as it is, a type the file lacks is NaN.
    for (let t = 0; t < columnOf.length; t++) {
      const c = columnOf[t]!;
      if (c < 0) values[t]!.fill(NaN, k0, k);
      else if (k - k0 === times.length && group[c + 1]!.length === times.length) values[t]!.set(group[c + 1]!, k0);
      else copyInRange(values[t]!, k0, group[c + 1]!, times, lo, hi);
    }
    k0 = k;
  }
  return { at, values };
}

/** The values of `column` whose time lies in `lo`…`hi`, written to `out` from `at` on. */
function copyInRange(
  out: Float64Array,
  at: number,
  column: Float64Array,
  times: Float64Array,
  lo: number,
  hi: number,
): void {
  let k = at;
  for (let i = 0; i < times.length; i++) {
    const o = times[i]!;
    if (o >= lo && o <= hi) out[k++] = column[i]!;
  }
}

/**
 * Puts rows in period order, one per period (the last given wins, as a map
 * by period would keep it). Rows already in order, the usual case, are
 * returned as they are.
 */
export function orderRows(rows: StationRows): StationRows {
  const { at } = rows;
  let ordered = true;
  for (let i = 1; i < at.length && ordered; i++) ordered = at[i - 1]! < at[i]!;
  if (ordered) return rows;
  // Stable sort by ordinal; of equal ordinals the last one given is kept.
  const order = Array.from(at.keys()).sort((a, b) => at[a]! - at[b]! || a - b);
  const keep: number[] = [];
  for (let k = 0; k < order.length; k++) {
    if (k + 1 < order.length && at[order[k + 1]!] === at[order[k]!]) continue;
    keep.push(order[k]!);
  }
  return {
    at: Float64Array.from(keep, (i) => at[i]!),
    values: rows.values.map((column) => Float64Array.from(keep, (i) => column[i]!)),
  };
}

/** Rows from (ordinal, values) pairs in any order; values in the order of the asked types, null where none. */
export function rowsOf(types: number, entries: Iterable<readonly [number, readonly (number | null)[]]>): StationRows {
  const list = [...entries];
  const at = Float64Array.from(list, ([o]) => o);
  const values = Array.from({ length: types }, (_, t) =>
    Float64Array.from(list, ([, v]) => (v[t] === null || v[t] === undefined ? NaN : v[t]!)),
  );
  return orderRows({ at, values });
}

/** Whether any row has a value of any type. */
export function hasAnyValue(rows: StationRows): boolean {
  for (const column of rows.values) for (let i = 0; i < column.length; i++) if (!Number.isNaN(column[i]!)) return true;
  return false;
}

/**
 * The index of the row at each period from `start` to `start + length - 1`
 * (-1 where there is none): one merge of the two ordered sequences.
 */
export function rowIndexByPeriod(rows: StationRows, start: number, length: number): Int32Array {
  const out = new Int32Array(length).fill(-1);
  const { at } = rows;
  let i = 0;
  while (i < at.length && at[i]! < start) i++;
  for (; i < at.length; i++) {
    const p = at[i]! - start;
    if (p >= length) break;
    out[p] = i;
  }
  return out;
}

/** One type's values at each period, from {@link rowIndexByPeriod}'s row indexes: NaN where a period has no row. */
export function valuesByPeriod(values: Float64Array, rowAt: Int32Array): Float64Array {
  const out = new Float64Array(rowAt.length);
  for (let p = 0; p < rowAt.length; p++) {
    const r = rowAt[p]!;
    out[p] = r >= 0 ? values[r]! : NaN;
  }
  return out;
}
