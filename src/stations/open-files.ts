/**
 * The station files a reader has open: each with its exact-range cache and,
 * once read, its parsed footer. Least recently used files are closed first
 * (handles, footers and cached bytes released), so a long session over a
 * large network keeps a bounded number open.
 */
import type { FileMetaData } from 'hyparquet';
import type { ByteSource } from '../io/byte-source.ts';
import { Lru } from '../io/lru.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';
import { RangeCache } from '../io/range-cache.ts';

/** Per open file: enough for every row group of a decade of hourly data asked twice. */
const FILE_CACHE_BYTES = 4 * 1024 * 1024;

/** One open station file. */
export interface OpenFile {
  cached: RangeCache;
  /** Its footer, parsed once (set by the reader on the first read). */
  metadata?: Promise<FileMetaData>;
}

/** A bounded registry of open files, keyed by path. */
export class OpenFiles {
  private readonly files: Lru<string, OpenFile>;

  constructor(
    /** Opens a file's byte source (the dataset location resolves and confines the path). */
    private readonly source: (path: string, size: number) => ByteSource,
    maxOpen = 256,
    /** The engine's bound over every cache: the files' ranges count against it. */
    private readonly budget?: MemoryBudget,
  ) {
    this.files = new Lru<string, OpenFile>(maxOpen, (_path, old) => void old.cached.close());
  }

  /** The open file at `path` (of `size` bytes, as the index records), opened if it is not. */
  open(path: string, size: number): OpenFile {
    let f = this.files.get(path);
    if (f) return f;
    f = { cached: new RangeCache(this.source(path, size), size, FILE_CACHE_BYTES, this.budget) };
    this.files.set(path, f);
    return f;
  }

  /** The open file at `path`, if any. */
  get(path: string): OpenFile | undefined {
    return this.files.get(path);
  }

  /**
   * Drops `f` (if it is still the one open at `path`) with its footer and bytes, so the next
   * read fetches the file afresh: bytes that were wrong once (a truncated or shifted answer)
   * must not be served from the cache after the host heals.
   */
  forget(path: string, f: OpenFile): void {
    if (this.files.delete(path, f)) void f.cached.close();
  }

  /** Closes every open file. */
  async closeAll(): Promise<void> {
    const all = this.files.values();
    this.files.clear();
    await Promise.all(all.map((f) => f.cached.close()));
  }
}
