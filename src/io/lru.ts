/**
 * One least-recently-used map for every cache of the readers (decoded
 * column chunks, raster blocks, open station files): entries carry a weight
 * (bytes, values, or 1 per entry), and the oldest are dropped once the total
 * passes the bound — never the entry just set, so one oversized entry is
 * still served once. `onEvict` releases what an entry holds (a file handle).
 * With a {@link MemoryBudget} (weights in bytes) the map also counts against
 * the engine's one bound, and gives up its oldest entry when another cache
 * needs the room.
 */
import type { BudgetHolder, MemoryBudget } from './memory-budget.ts';

export class Lru<K, V> implements BudgetHolder {
  private readonly entries = new Map<K, { value: V; weight: number; used: number }>();
  private total = 0;
  private uses = 0;
  /** The key being set: the budget never takes it back from this map. */
  private adding: K | undefined;

  constructor(
    /** Most total weight held. */
    private readonly maxWeight: number,
    /** Called for each entry dropped to stay under the bound (not for delete() or clear()). */
    private readonly onEvict?: (key: K, value: V) => void,
    /** The engine's bound over every cache; weights are then bytes. */
    private readonly budget?: MemoryBudget,
  ) {
    budget?.join(this);
  }

  private stamp(): number {
    return this.budget ? this.budget.stamp() : ++this.uses;
  }

  /** The value for `key`, now the most recently used; undefined when not held. */
  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    e.used = this.stamp();
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
    this.entries.set(key, { value, weight, used: this.stamp() });
    this.total += weight;
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxWeight || k === key) break;
      this.drop(k, e);
    }
    this.adding = key;
    try {
      // (Again after close(): a cache used on counts against the budget again.)
      this.budget?.join(this);
      this.budget?.charge(weight);
    } finally {
      this.adding = undefined;
    }
  }

  /** Drops `key`, only if it still holds `value` when one is given (a late failure must not drop a newer entry). */
  delete(key: K, value?: V): boolean {
    const e = this.entries.get(key);
    if (!e || (value !== undefined && e.value !== value)) return false;
    this.entries.delete(key);
    this.total -= e.weight;
    this.budget?.release(e.weight);
    return true;
  }

  /** Every value held, oldest first. */
  values(): V[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  /** Drops everything (without `onEvict`). */
  clear(): void {
    this.entries.clear();
    this.budget?.release(this.total);
    this.total = 0;
  }

  /** Drops everything and stops counting against the budget (the cache is done with). */
  close(): void {
    this.clear();
    this.budget?.leave(this);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  oldest(): number | undefined {
    for (const [k, e] of this.entries) if (k !== this.adding) return e.used;
    return undefined;
  }

  dropOldest(): void {
    for (const [k, e] of this.entries) {
      if (k === this.adding) continue;
      this.drop(k, e);
      return;
    }
  }

  private drop(k: K, e: { value: V; weight: number }): void {
    this.entries.delete(k);
    this.total -= e.weight;
    this.budget?.release(e.weight);
    this.onEvict?.(k, e.value);
  }
}
