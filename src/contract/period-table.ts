/**
 * A table of periods as columns: the same content as the contract's
 * `{ [period key]: { [field]: number | null } }` objects, before those
 * objects are made. The engine makes them at the end of a query; a
 * transport that can send columns (the engine Worker) asks to keep the
 * table and sends its arrays instead (worker/packed-tables.ts), so the
 * period objects of a 10-point hourly year are made once, on the page,
 * not also in the Worker. Written as JSON it is the objects' JSON.
 */
export class PeriodTable {
  constructor(
    /** Period keys, in answer order. */
    readonly keys: readonly string[],
    /** Field names of each period's object, in order. */
    readonly fields: readonly string[],
    /** One column per field, a value per period: NaN stands for null. */
    readonly columns: readonly Float64Array[],
  ) {}

  /** The contract's objects: period key → field → number or null. */
  rows(): Record<string, Record<string, number | null>> {
    const out: Record<string, Record<string, number | null>> = {};
    const { keys, fields, columns } = this;
    // A column moved to another thread (transferred) is empty here: an error, never rows of nothing.
    for (const c of columns)
      if (c.length !== keys.length)
        throw new Error(`a period table column holds ${c.length} values for ${keys.length} periods`);
    for (let i = 0; i < keys.length; i++) {
      const row: Record<string, number | null> = {};
      for (let j = 0; j < fields.length; j++) {
        const v = columns[j]![i]!;
        row[fields[j]!] = Number.isNaN(v) ? null : v;
      }
      out[keys[i]!] = row;
    }
    return out;
  }

  /** JSON.stringify writes the contract's objects. */
  toJSON(): Record<string, Record<string, number | null>> {
    return this.rows();
  }
}

/** How deep in an answer period tables sit (nearest-station's `data` is at depth 2). */
export const PERIOD_TABLE_DEPTH = 3;
