/**
 * One least-recently-used map for every cache of the readers (decoded
 * column chunks, raster blocks, open station files): entries carry a weight
 * (bytes, values, or 1 per entry), and the oldest are dropped once the total
 * passes the bound — never the entry just set, so one oversized entry is
 * still served once. `onEvict` releases what an entry holds (a file handle).
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    /** Most total weight held. */
    private readonly maxWeight: number,
    /** Called for each entry dropped to stay under the bound (not for delete() or clear()). */
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  /** The value for `key`, now the most recently used; undefined when not held. */
  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Whether `key` is held, without touching its recency. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Holds `value` under `key` as the most recently used, then drops the oldest entries past the bound. */
  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxWeight || k === key) break;
      this.entries.delete(k);
      this.total -= e.weight;
      this.onEvict?.(k, e.value);
    }
  }

  /** Drops `key`, only if it still holds `value` when one is given (a late failure must not drop a newer entry). */
  delete(key: K, value?: V): boolean {
    const e = this.entries.get(key);
    if (!e || (value !== undefined && e.value !== value)) return false;
    this.entries.delete(key);
    this.total -= e.weight;
    return true;
  }

  /** Every value held, oldest first. */
  values(): V[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  /** Drops everything (without `onEvict`). */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }
}
