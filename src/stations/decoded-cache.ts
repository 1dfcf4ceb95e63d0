/**
 * Decoded column chunks of station files (one row group, one column), kept
 * so a repeated or overlapping query does not decompress and decode the
 * same chunks again. The byte cache alone left warm queries doing all the
 * decoding: measured on the scale bench's 2,000-station daily archive, a
 * warm poly-aggregate of 62 stations took 2.5× native DuckDB, the time
 * almost all in hyparquet decoding whole 2,048-day row groups to use one year.
 *
 * Bounded by the bytes of the values held (8 a value; least recently used
 * dropped first), and within the engine's one memory budget; a failed
 * decode is not kept, so the next query tries again.
 */
import { Lru } from '../io/lru.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';

/** An LRU of decoded columns, bounded by the bytes of their values. */
export class DecodedCache {
  private readonly held: Lru<string, Promise<Float64Array>>;

  constructor(
    /** Most bytes of values held at once (4 M Float64 values). */
    maxBytes = 32 * 1024 * 1024,
    budget?: MemoryBudget,
  ) {
    this.held = new Lru(maxBytes, undefined, budget);
  }

  /** The decoded column for `key`, decoding it with `decode` (for `rows` values) when not held. */
  get(key: string, rows: number, decode: () => Promise<Float64Array>): Promise<Float64Array> {
    const hit = this.held.get(key);
    if (hit) return hit;
    const values = decode();
    this.held.set(key, values, rows * Float64Array.BYTES_PER_ELEMENT);
    values.catch(() => this.held.delete(key, values));
    return values;
  }

  /** Whether `key` is held (without touching its recency). */
  has(key: string): boolean {
    return this.held.has(key);
  }

  /** Drops everything. */
  clear(): void {
    this.held.close();
  }
}
