/**
 * One bound, in bytes, on everything an engine's caches hold: decoded
 * station columns, station file ranges, raster blocks and Zarr chunks. Each
 * cache keeps its own bound too; the budget bounds their sum, which grew
 * with the number of files a long-lived `serve` or tab had opened (256
 * station files × 4 MiB, 32 MiB per raster file). When the sum passes the
 * bound, the least recently used entry across every cache goes first,
 * whichever cache holds it; a cache never gives up the entry it is adding.
 */

/** A cache whose entries the budget may drop, least recently used first. */
export interface BudgetHolder {
  /** The use stamp (from {@link MemoryBudget.stamp}) of its least recently used entry it may give up; undefined when none. */
  oldest(): number | undefined;
  /** Gives that entry up, releasing its bytes. */
  dropOldest(): void;
}

/** Cache memory of one engine: a phone's tab, a `serve` process. */
export const DEFAULT_MEMORY_BYTES = 128 * 1024 * 1024;

/** The bytes every cache of one engine holds, kept under {@link maxBytes}. */
export class MemoryBudget {
  private clock = 0;
  private held = 0;
  private readonly holders = new Set<BudgetHolder>();

  constructor(readonly maxBytes: number = DEFAULT_MEMORY_BYTES) {
    if (!(maxBytes > 0)) throw new RangeError('A memory budget is a positive number of bytes.');
  }

  /** Bytes held by every cache now. */
  get bytes(): number {
    return this.held;
  }

  /** A new use stamp: later uses get larger ones. */
  stamp(): number {
    return ++this.clock;
  }

  join(holder: BudgetHolder): void {
    this.holders.add(holder);
  }

  leave(holder: BudgetHolder): void {
    this.holders.delete(holder);
  }

  /** Counts `bytes` as held, then drops least recently used entries anywhere until the total fits. */
  charge(bytes: number): void {
    this.held += bytes;
    while (this.held > this.maxBytes) {
      let pick: BudgetHolder | undefined;
      let at = Infinity;
      for (const h of this.holders) {
        const o = h.oldest();
        if (o !== undefined && o < at) {
          at = o;
          pick = h;
        }
      }
      if (!pick) return;
      pick.dropOldest();
    }
  }

  /** Counts `bytes` as no longer held. */
  release(bytes: number): void {
    this.held -= bytes;
  }
}
