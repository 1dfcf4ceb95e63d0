/**
 * An answer's period tables as columns for the trip from the engine Worker
 * to the page. Structured clone copies an object graph property by
 * property: the 87,600 period objects of a 10-station hourly year took
 * 213 ms to send and 154 ms to receive in Chromium, while typed arrays move
 * without a copy and the page rebuilds the objects in about 100 ms
 * (docs/performance.md). A table is a {@link PeriodTable} the engine left
 * as columns (CallOptions.periodTables), or an object of at least
 * {@link MIN_TABLE_ROWS} plain objects that all have the same keys in the
 * same order and only numbers or null as values. Anything else travels as
 * it is. Unpacking gives back the same JSON, key order included.
 *
 * Tables with the same period keys (every station of one answer: same range)
 * carry one keys array between them. Structured clone keeps that sharing,
 * so the 8,760 keys of an hourly year are copied once, not once per
 * station, and the page uses the same key strings for every station.
 */
import { PERIOD_TABLE_DEPTH, PeriodTable } from '../contract/period-table.ts';

/** One packed table: where it sits in the body, its row keys, its field names, and a column per field (NaN for null). */
export interface PackedTable {
  /** Property names from the body down to the table. */
  path: string[];
  keys: string[];
  fields: string[];
  columns: Float64Array[];
}

/** Tables with fewer rows travel as objects: packing pays only on large ones. */
export const MIN_TABLE_ROWS = 64;

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** `keys`, or an equal array an earlier table of the same body already carries. */
function sharedKeys(keys: readonly string[], seen: string[][]): string[] {
  for (const other of seen) {
    if (other.length !== keys.length) continue;
    let same = true;
    for (let i = 0; i < keys.length && same; i++) same = other[i] === keys[i];
    if (same) return other;
  }
  const copy = [...keys];
  seen.push(copy);
  return copy;
}

/** The table `o` would pack into, or null when it is not one; `seen`: keys arrays of the body's tables so far. */
function tableOf(o: Record<string, unknown>, path: string[], seen: string[][]): PackedTable | null {
  if (o instanceof PeriodTable) {
    // Each column on a buffer of its own, so transferring it takes nothing else along.
    const columns = o.columns.map((c) => (c.byteLength === c.buffer.byteLength ? c : c.slice()));
    return { path, keys: sharedKeys(o.keys, seen), fields: [...o.fields], columns };
  }
  const keys = Object.keys(o);
  if (keys.length < MIN_TABLE_ROWS) return null;
  const first = o[keys[0]!];
  if (!isPlain(first)) return null;
  const fields = Object.keys(first);
  if (fields.length === 0) return null;
  const columns = fields.map(() => new Float64Array(keys.length));
  for (let i = 0; i < keys.length; i++) {
    const row = o[keys[i]!];
    if (!isPlain(row)) return null;
    let j = 0;
    for (const f in row) {
      // Same keys in the same order, and only JSON numbers or null (NaN stands for null).
      if (f !== fields[j] || !Object.hasOwn(row, f)) return null;
      const v = row[f];
      if (v === null) columns[j]![i] = NaN;
      else if (typeof v === 'number' && Number.isFinite(v)) columns[j]![i] = v;
      else return null;
      j++;
    }
    if (j !== fields.length) return null;
  }
  return { path, keys: sharedKeys(keys, seen), fields, columns };
}

/**
 * The body with each period table cut out (left as null at its place) and
 * the tables as columns, with the buffers to transfer.
 */
export function packTables(body: unknown): { body: unknown; tables: PackedTable[]; transfer: ArrayBuffer[] } {
  const tables: PackedTable[] = [];
  const seen: string[][] = [];
  const cut = (o: unknown, path: string[]): unknown => {
    if (!isPlain(o) && !(o instanceof PeriodTable)) return o;
    const table = tableOf(o as Record<string, unknown>, path, seen);
    if (table) {
      tables.push(table);
      return null;
    }
    if (path.length >= PERIOD_TABLE_DEPTH) return o;
    let copy: Record<string, unknown> | null = null;
    const from = o as Record<string, unknown>;
    for (const k of Object.keys(from)) {
      const v = cut(from[k], [...path, k]);
      if (v !== from[k]) copy ??= { ...from };
      if (copy) copy[k] = v;
    }
    return copy ?? from;
  };
  const packed = cut(body, []);
  return { body: packed, tables, transfer: tables.flatMap((t) => t.columns.map((c) => c.buffer as ArrayBuffer)) };
}

/** The body as it was before {@link packTables}: each table rebuilt as objects at its place. */
export function unpackTables(body: unknown, tables: readonly PackedTable[]): unknown {
  for (const t of tables) {
    const rows = new PeriodTable(t.keys, t.fields, t.columns).rows();
    if (t.path.length === 0) return rows;
    let at = body as Record<string, unknown>;
    for (const k of t.path.slice(0, -1)) at = at[k] as Record<string, unknown>;
    at[t.path[t.path.length - 1]!] = rows;
  }
  return body;
}
