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
 *
 * A table the engine finishes before the rest of its answer (each point's
 * table of a nearest-station query, as its station's rows are decoded) can
 * be sent ahead as a part ({@link TablesAhead}); the page makes its objects
 * as it arrives ({@link TablesReceived}), on its own core while the Worker
 * decodes the next station, and the answer then names the part where the
 * table sits ({@link SentTable}). Measured on a 10-point hourly year in
 * Chromium: the page spent 230-370 ms making the objects after the answer
 * arrived, while the stations' rows were finished 35-115 ms apart over
 * about 560 ms.
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

/** A table sent ahead of its answer: where it sits in the body, and its part number. */
export interface SentTable {
  path: string[];
  part: number;
}

/** A table sent ahead of its answer: its part number, field names and columns, and its keys or the part whose keys it shares. */
export interface TablePart {
  part: number;
  fields: string[];
  columns: Float64Array[];
  keys?: string[];
  keysOf?: number;
}

/** Tables with fewer rows travel as objects: packing pays only on large ones. */
export const MIN_TABLE_ROWS = 64;

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** Whether two key arrays hold the same keys in the same order. */
function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `keys`, or an equal array an earlier table of the same body already carries. */
function sharedKeys(keys: readonly string[], seen: string[][]): string[] {
  const other = seen.find((k) => sameKeys(k, keys));
  if (other) return other;
  const copy = [...keys];
  seen.push(copy);
  return copy;
}

/** The columns of a PeriodTable, each on a buffer of its own, so transferring it takes nothing else along. */
const ownColumns = (t: PeriodTable): Float64Array[] =>
  t.columns.map((c) => (c.byteLength === c.buffer.byteLength ? c : c.slice()));

/** The table `o` would pack into, or null when it is not one; `seen`: keys arrays of the body's tables so far. */
function tableOf(o: Record<string, unknown>, path: string[], seen: string[][]): PackedTable | null {
  if (o instanceof PeriodTable)
    return { path, keys: sharedKeys(o.keys, seen), fields: [...o.fields], columns: ownColumns(o) };
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
 * the tables as columns, with the buffers to transfer; a table already
 * sent ahead (in `ahead`) is named by its part, not sent again.
 */
export function packTables(
  body: unknown,
  ahead?: TablesAhead,
): { body: unknown; tables: Array<PackedTable | SentTable>; transfer: ArrayBuffer[] } {
  const tables: Array<PackedTable | SentTable> = [];
  const transfer: ArrayBuffer[] = [];
  const seen: string[][] = [];
  const cut = (o: unknown, path: string[]): unknown => {
    if (!isPlain(o) && !(o instanceof PeriodTable)) return o;
    const part = o instanceof PeriodTable ? ahead?.partOf(o) : undefined;
    if (part !== undefined) {
      tables.push({ path, part });
      return null;
    }
    const table = tableOf(o as Record<string, unknown>, path, seen);
    if (table) {
      tables.push(table);
      for (const c of table.columns) transfer.push(c.buffer as ArrayBuffer);
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
  return { body: packed, tables, transfer };
}

/**
 * The body as it was before {@link packTables}: each table rebuilt as objects at its place, those
 * sent ahead taken from `received`. Throws when a part the body names never arrived.
 */
export function unpackTables(
  body: unknown,
  tables: ReadonlyArray<PackedTable | SentTable>,
  received?: TablesReceived,
): unknown {
  for (const t of tables) {
    const rows = 'part' in t ? received?.rows(t.part) : new PeriodTable(t.keys, t.fields, t.columns).rows();
    if (!rows) throw new Error(`the answer names table part ${(t as SentTable).part}, which never arrived`);
    if (t.path.length === 0) return rows;
    let at = body as Record<string, unknown>;
    for (const k of t.path.slice(0, -1)) at = at[k] as Record<string, unknown>;
    at[t.path[t.path.length - 1]!] = rows;
  }
  return body;
}

/**
 * The Worker's side of tables sent ahead of one answer: each table's part
 * number, and the keys already sent, so a part whose keys an earlier part
 * carried names that part instead of sending them again.
 */
export class TablesAhead {
  private readonly parts = new Map<PeriodTable, number>();
  private readonly keysSent: Array<{ keys: readonly string[]; part: number }> = [];

  /** The part `table` was sent as, if it was. */
  partOf(table: PeriodTable): number | undefined {
    return this.parts.get(table);
  }

  /** Numbers `table` as the next part: the part to send, and the buffers to transfer with it (the engine reads the table no more). */
  send(table: PeriodTable): { part: TablePart; transfer: ArrayBuffer[] } {
    if (this.parts.has(table)) throw new Error(`table part ${this.parts.get(table)} was sent already`);
    const part = this.parts.size;
    this.parts.set(table, part);
    const columns = ownColumns(table);
    const sent = this.keysSent.find((k) => sameKeys(k.keys, table.keys));
    if (!sent) this.keysSent.push({ keys: table.keys, part });
    return {
      part: {
        part,
        fields: [...table.fields],
        columns,
        ...(sent ? { keysOf: sent.part } : { keys: [...table.keys] }),
      },
      transfer: columns.map((c) => c.buffer as ArrayBuffer),
    };
  }
}

/**
 * The page's side of tables sent ahead of one answer: each made into the
 * contract's objects as it arrives, kept until the answer names it.
 */
export class TablesReceived {
  private readonly made: Array<Record<string, Record<string, number | null>>> = [];
  private readonly keys: string[][] = [];

  /** Makes the objects of a part as it arrives. Throws when it names keys of a part not received. */
  add(p: TablePart): void {
    const keys = p.keys ?? (p.keysOf === undefined ? undefined : this.keys[p.keysOf]);
    if (!keys) throw new Error(`table part ${p.part} names the keys of part ${p.keysOf}, which never arrived`);
    this.keys[p.part] = keys;
    this.made[p.part] = new PeriodTable(keys, p.fields, p.columns).rows();
  }

  /** The objects of part `part`, once it arrived. */
  rows(part: number): Record<string, Record<string, number | null>> | undefined {
    return this.made[part];
  }
}
