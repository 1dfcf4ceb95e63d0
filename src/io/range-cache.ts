/**
 * A cache of exact byte ranges over a {@link ByteSource}, for Parquet files
 * whose reads are planned in advance. Unlike the raster side's block cache
 * (whole blocks, for geotiff.js's many unplanned small slices), the station
 * reader knows every range it needs from the footer, merges near ones itself
 * and asks for them together; rounding each to 4–16 KiB blocks would add
 * more than the small column chunks of a station-year weigh (measured on
 * the demo, 10 stations' hourly year: 665 KB of data read for 279 KB of
 * answer chunks with 4 KiB blocks, 459 KB with exact ranges, both with
 * chunks merged across gaps under 8 KiB). Reads are shared: a caller that aborts stops
 * waiting, and the read completes into the cache.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { abortable } from './abortable.ts';
import { asSourceError, type ByteSource } from './byte-source.ts';
import type { BudgetHolder, MemoryBudget } from './memory-budget.ts';

interface Held {
  start: number;
  end: number;
  bytes: Promise<Uint8Array>;
  /** When it was last used (the budget's stamp, or this cache's own count). */
  used: number;
}

/** Exact-range reads of one file of known size, cached, least recently used dropped past `maxBytes`. */
export class RangeCache implements BudgetHolder {
  /** Least recently used first. */
  private held: Held[] = [];
  private heldBytes = 0;
  private uses = 0;
  /** The range being added: the budget never takes it back from this cache. */
  private adding: Held | undefined;
  /** Reads sent to the source and bytes asked for, for diagnostics. */
  readonly stats = { reads: 0, bytes: 0 };

  constructor(
    readonly source: ByteSource,
    /** The file's size as the index records it: a shorter file is an error, never zeros. */
    readonly size: number,
    private readonly maxBytes = 4 * 1024 * 1024,
    /** The engine's bound over every cache (src/io/memory-budget.ts). */
    private readonly budget?: MemoryBudget,
  ) {
    budget?.join(this);
  }

  /**
   * Starts reading the parts of each range (already merged by the caller) that no held range
   * covers: a plan merged across a wider gap than an earlier one reads only what is new.
   */
  prefetch(ranges: ReadonlyArray<readonly [number, number]>): void {
    const todo: Array<[number, number]> = [];
    for (const [start, end] of ranges) {
      if (this.find(start, end)) continue;
      let at = start;
      const overlapping = this.held.filter((h) => h.end > start && h.start < end).sort((a, b) => a.start - b.start);
      for (const h of overlapping) {
        if (h.start > at) todo.push([at, h.start]);
        at = Math.max(at, h.end);
      }
      if (at < end) todo.push([at, end]);
    }
    // Several new ranges go to the source together: one request where the host answers several at once.
    const parts = mergeRanges(todo);
    if (parts.length > 1 && this.source.readRanges) this.loadMany(parts);
    else for (const [start, end] of parts) this.load(start, end);
  }

  /** Bytes [start, end) of the file, from a held range or one exact read. */
  async slice(start: number, end: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    const h = this.find(start, end) ?? this.load(start, end);
    const bytes = await abortable(h.bytes, signal);
    return bytes.slice(start - h.start, end - h.start).buffer;
  }

  /** Drops everything and closes the source. */
  async close(): Promise<void> {
    this.budget?.release(this.heldBytes);
    this.budget?.leave(this);
    this.held = [];
    this.heldBytes = 0;
    await this.source.close?.();
  }

  oldest(): number | undefined {
    return this.held.find((h) => h !== this.adding)?.used;
  }

  dropOldest(): void {
    const h = this.held.find((x) => x !== this.adding);
    if (h) this.drop(h);
  }

  private drop(h: Held): void {
    const i = this.held.indexOf(h);
    if (i < 0) return;
    this.held.splice(i, 1);
    this.heldBytes -= h.end - h.start;
    this.budget?.release(h.end - h.start);
  }

  private stamp(): number {
    return this.budget ? this.budget.stamp() : ++this.uses;
  }

  private find(start: number, end: number): Held | undefined {
    const i = this.held.findIndex((h) => h.start <= start && end <= h.end);
    if (i < 0) return undefined;
    const [h] = this.held.splice(i, 1);
    h!.used = this.stamp();
    this.held.push(h!);
    return h;
  }

  /** Reads `ranges` (ascending, apart, none held) with one call of the source's readRanges; each settles on its own. */
  private loadMany(ranges: ReadonlyArray<readonly [number, number]>): void {
    for (const [start, end] of ranges) this.checkInside(start, end);
    this.stats.reads++;
    const reads = this.source.readRanges!(ranges);
    ranges.forEach(([start, end], i) =>
      this.hold(
        start,
        end,
        retriedOnReset(() => this.source.read(start, end - start), reads[i]!),
      ),
    );
  }

  private checkInside(start: number, end: number): void {
    if (start < 0 || end > this.size || start > end) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${this.source.url}: bytes ${start}–${end} are outside the ${this.size} bytes the index records; the dataset changed. Rerun \`climate-query index\`.`,
      );
    }
  }

  private load(start: number, end: number): Held {
    this.checkInside(start, end);
    this.stats.reads++;
    return this.hold(
      start,
      end,
      retriedOnReset(() => this.source.read(start, end - start)),
    );
  }

  /** Keeps the read of bytes [start, end) under way as `read`, checked to be whole. */
  private hold(start: number, end: number, read: Promise<Uint8Array>): Held {
    this.stats.bytes += end - start;
    const bytes = read.then(
      (b) => {
        if (b.length !== end - start) {
          throw new ClimateQueryError(
            'dataset_unavailable',
            `${this.source.url} ended at byte ${start + b.length}, before the ${this.size} bytes the index records; the file is truncated or changed. Rebuild the dataset or rerun \`climate-query index\`.`,
          );
        }
        return b;
      },
      (err: unknown) => {
        throw asSourceError(err, this.source.url);
      },
    );
    const h: Held = { start, end, bytes, used: this.stamp() };
    // A failed read is not kept (if it is still held): the next query tries again.
    bytes.catch(() => this.drop(h));
    this.held.push(h);
    this.heldBytes += end - start;
    while (this.heldBytes > this.maxBytes && this.held.length > 1) this.drop(this.held[0]!);
    this.adding = h;
    try {
      this.budget?.join(this);
      this.budget?.charge(end - start);
    } finally {
      this.adding = undefined;
    }
    return h;
  }
}

/** Sorted ranges, those that touch or overlap joined. */
function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const r of ranges.sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/**
 * `first` (by default `read()`), then `read()` once more when the connection itself failed (not an HTTP error, not an abort): a
 * kept-alive connection the server closed just as it was reused resets (ECONNRESET), and a
 * Range GET is safe to repeat.
 */
function retriedOnReset<T>(read: () => Promise<T>, first: Promise<T> = read()): Promise<T> {
  return first.catch((err: unknown) => {
    const cause = err instanceof ClimateQueryError ? (err as { cause?: unknown }).cause : err;
    if (cause instanceof TypeError && !(err instanceof ClimateQueryError && err.code === 'aborted')) return read();
    throw err;
  });
}
