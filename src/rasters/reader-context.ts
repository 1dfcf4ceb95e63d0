/**
 * What every layout's reader is opened with (raster-reader.ts `ReaderContext`), made once for a
 * catalog and a dataset: each file opened once and shared by every read, the chunk cache, the
 * read bound. The raster engine holds one for its lifetime; a build that reads a published store
 * holds one while it copies the store (src/builder/source-input.ts). Free of node:* imports.
 */
import type { Catalog, RasterLayerEntry } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../io/abortable.ts';
import type { BlockCacheOptions } from './cached-source.ts';
import { readerOf } from './layouts/registry.ts';
import type { RasterFile, ReaderContext } from './raster-reader.ts';
import { DEFAULT_MAX_READ_BYTES } from './read-cost.ts';
import { ObjectCache } from './zarr-file.ts';

/** Options of {@link createReaderContext}. */
export interface ReaderContextOptions {
  catalog: Pick<Catalog, 'files'>;
  /** Resolves, confines and opens every file the catalog lists (foreign URLs as its opener allows). */
  dataset: DatasetLocation;
  cache?: BlockCacheOptions | undefined;
  /** Most tile reads in flight at once (default 32). */
  concurrency?: number | undefined;
  /** Most bytes one read plan may decode from chunks that state a cost (default: read-cost.ts). */
  maxReadBytes?: number | undefined;
}

/** A reader context and how to end it: every open file closed, every read in flight stopped. */
export interface OwnedReaderContext {
  ctx: ReaderContext;
  close(): Promise<void>;
}

export function createReaderContext(options: ReaderContextOptions): OwnedReaderContext {
  const { dataset } = options;
  // Opens are shared by all reads, so no one read's signal cancels them; closing does.
  const lifetime = new AbortController();
  const opened = new Map<string, Promise<RasterFile>>();

  /**
   * Opens (once, shared by all reads) file `index` of `layer` and checks it against the catalog.
   * Callers wait with their own signal; the open itself is not cancelled by one of them.
   */
  function file(layer: RasterLayerEntry, index: number, signal?: AbortSignal): Promise<RasterFile> {
    const url = dataset.resolve(layer.files[index]!.path);
    let p = opened.get(url);
    if (!p) {
      const opening = readerOf(layer).open(ctx, layer, index);
      opened.set(url, opening);
      // A failed open (network, abort) must not stick: forget it so the next read retries.
      opening.catch(() => opened.delete(url));
      p = opening;
    }
    return abortable(p, signal);
  }
  const ctx: ReaderContext = {
    dataset,
    // What the catalog says of each file: a byte source checks every answer against it.
    listed: new Map(options.catalog.files.map((f) => [f.path, f])),
    cache: options.cache,
    // Chunks of every zarr store, read whole by key (no header, no index).
    objects: new ObjectCache(dataset, options.cache?.maxBytes, lifetime.signal, options.cache?.budget),
    maxReadBytes: options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES,
    lifetime: lifetime.signal,
    concurrency: Math.max(1, options.concurrency ?? 32),
    file,
  };
  return {
    ctx,
    async close() {
      lifetime.abort();
      ctx.objects.clear();
      const files = [...opened.values()];
      opened.clear();
      await Promise.all(files.map((p) => p.then((f) => f.close()).catch(() => undefined)));
    },
  };
}
