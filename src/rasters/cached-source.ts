/**
 * A block cache between geotiff.js and a {@link ByteSource}. geotiff.js asks
 * for many small slices (header, IFD, tile offsets, byte counts, the tile);
 * left alone, each is its own request, three sequential ones per tile
 * (docs/decisions/0002-platform-facts.md §Reads). Here every slice is widened to whole blocks, blocks already
 * held are served from memory, and the missing blocks that are asked for in
 * the same tick are merged into one read per contiguous run. So a tile costs
 * one request once the header is known, and neighbouring tiles asked for
 * together share one.
 *
 * Reads are shared by every caller that needs the same block, so the
 * underlying read is not tied to one caller's AbortSignal: a caller that
 * aborts stops waiting at once, and the read finishes into the cache.
 */
import { abortable } from '../io/abortable.ts';
import { Lru } from '../io/lru.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';
import { asSourceError, type ByteSource } from '../io/byte-source.ts';

/** A byte range as geotiff.js asks for it. */
export interface Slice {
  offset: number;
  length: number;
}

/** Options of {@link BlockCachedSource}. */
export interface BlockCacheOptions {
  /** Block size in bytes; 16 KiB keeps waste per tile small (docs/decisions/0002-platform-facts.md §Reads: 16–64 KiB). */
  blockSize?: number;
  /** Most bytes of blocks kept; least recently used blocks go first. */
  maxBytes?: number;
  /** The engine's bound over every cache (src/io/memory-budget.ts): the blocks count against it. */
  budget?: MemoryBudget;
}

interface Waiter {
  promise: Promise<Uint8Array>;
  resolve(bytes: Uint8Array): void;
  reject(err: unknown): void;
}

/**
 * The source object handed to `GeoTIFF.fromSource`: geotiff.js only calls
 * `fetch(slices, signal)`, reads `fileSize` and may call `close()`.
 */
export class BlockCachedSource {
  readonly blockSize: number;
  private readonly blocks: Lru<number, Uint8Array>;
  private readonly inFlight = new Map<number, Waiter>();
  private readonly pending = new Set<number>();
  private flushScheduled = false;
  private knownSize: number | null = null;
  /** Aborts every read still in flight when the cache is closed, so no read outlives its file. */
  private readonly lifetime = new AbortController();
  /** Reads issued to the underlying source and bytes they returned, for diagnostics. */
  readonly stats = { reads: 0, bytes: 0 };
  /**
   * Checks a slice's bytes before they are handed on; a slice that fails has its blocks dropped
   * (so no later read is served from them) and the check's error is thrown.
   */
  check: ((slice: Slice, bytes: Uint8Array) => Promise<void>) | null = null;

  constructor(
    readonly source: ByteSource,
    options: BlockCacheOptions = {},
  ) {
    this.blockSize = options.blockSize ?? 16 * 1024;
    this.blocks = new Lru(options.maxBytes ?? 32 * 1024 * 1024, undefined, options.budget);
    if (!(this.blockSize >= 512)) throw new RangeError('blockSize must be at least 512 bytes.');
  }

  /** The file size once a read has hit the end, otherwise null (what geotiff.js expects). */
  get fileSize(): number | null {
    return this.knownSize;
  }

  /** Returns each slice's bytes as an ArrayBuffer of exactly `length` bytes (zero past the end of file). */
  async fetch(slices: Slice[], signal?: AbortSignal): Promise<ArrayBuffer[]> {
    if (signal?.aborted) throw asSourceError(signal.reason, this.source.url, signal);
    const ids = new Set<number>();
    for (const { offset, length } of slices) {
      if (length <= 0) continue;
      const first = Math.floor(offset / this.blockSize);
      const last = Math.floor((offset + length - 1) / this.blockSize);
      for (let id = first; id <= last; id++) ids.add(id);
    }
    const got = new Map<number, Uint8Array>();
    const waits: Array<Promise<void>> = [];
    for (const id of ids) {
      const held = this.blocks.get(id);
      if (held) {
        got.set(id, held);
        continue;
      }
      const waiter = this.inFlight.get(id) ?? this.request(id);
      waits.push(waiter.promise.then((b) => void got.set(id, b)));
    }
    if (waits.length > 0) {
      try {
        await abortable(Promise.all(waits), signal);
      } catch (err) {
        throw asSourceError(err, this.source.url, signal);
      }
    }
    const out = slices.map((s) => this.assemble(s, got));
    const check = this.check;
    if (check) {
      await Promise.all(
        slices.map((s, i) =>
          check(s, new Uint8Array(out[i]!)).catch((err: unknown) => {
            this.dropRange(s);
            throw err;
          }),
        ),
      );
    }
    return out;
  }

  /** Drops the blocks that hold any byte of `slice`. */
  dropRange({ offset, length }: Slice): void {
    if (length <= 0) return;
    const last = Math.floor((offset + length - 1) / this.blockSize);
    for (let id = Math.floor(offset / this.blockSize); id <= last; id++) this.blocks.delete(id);
  }

  /**
   * Drops every block held (reads in flight finish, uncached), so the next
   * read of the file goes to the source: for bytes that failed to decode.
   */
  dropBlocks(): void {
    this.blocks.clear();
  }

  /** Drops all blocks and closes the underlying source. */
  async close(): Promise<void> {
    this.lifetime.abort();
    this.blocks.close();
    await this.source.close?.();
  }

  private request(id: number): Waiter {
    let resolve!: (b: Uint8Array) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<Uint8Array>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A caller that aborted no longer listens; keep its rejection from going unhandled.
    promise.catch(() => undefined);
    const waiter = { promise, resolve, reject };
    this.inFlight.set(id, waiter);
    this.pending.add(id);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A macrotask, not a microtask: geotiff.js issues related slices from
      // separate async steps, and waiting one turn lets them join one read.
      setTimeout(() => this.flush(), 0);
    }
    return waiter;
  }

  private flush(): void {
    this.flushScheduled = false;
    const ids = [...this.pending].sort((a, b) => a - b);
    this.pending.clear();
    let runStart = 0;
    for (let i = 1; i <= ids.length; i++) {
      if (i === ids.length || ids[i] !== ids[i - 1]! + 1) {
        void this.readRun(ids.slice(runStart, i));
        runStart = i;
      }
    }
  }

  private async readRun(ids: number[]): Promise<void> {
    const first = ids[0]!;
    const offset = first * this.blockSize;
    const length = ids.length * this.blockSize;
    let bytes: Uint8Array;
    try {
      bytes = await this.source.read(offset, length, this.lifetime.signal);
      this.stats.reads++;
      this.stats.bytes += bytes.length;
    } catch (err) {
      const error = asSourceError(err, this.source.url, this.lifetime.signal);
      for (const id of ids) {
        this.inFlight.get(id)?.reject(error);
        this.inFlight.delete(id);
      }
      return;
    }
    if (bytes.length < length) this.knownSize = offset + bytes.length;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const start = k * this.blockSize;
      // Copy so a cached block does not pin the whole run's buffer.
      const block = bytes.slice(Math.min(start, bytes.length), Math.min(start + this.blockSize, bytes.length));
      this.blocks.set(id, block, block.length);
      this.inFlight.get(id)?.resolve(block);
      this.inFlight.delete(id);
    }
  }

  private assemble({ offset, length }: Slice, got: Map<number, Uint8Array>): ArrayBuffer {
    const out = new Uint8Array(Math.max(0, length));
    let pos = offset;
    const end = offset + length;
    while (pos < end) {
      const id = Math.floor(pos / this.blockSize);
      const block = got.get(id);
      const inBlock = pos - id * this.blockSize;
      const take = Math.min(this.blockSize - inBlock, end - pos);
      if (block && inBlock < block.length) {
        out.set(block.subarray(inBlock, Math.min(inBlock + take, block.length)), pos - offset);
      }
      pos += take;
    }
    return out.buffer;
  }
}
