/**
 * The reader of a `zarr` layer's stores (zarr-layout.ts): a store seen as a
 * grid of tiles (its chunks), each tile one object read whole by its key,
 * which is computed from the tile and the catalog: no store metadata and no
 * index are read first. Compressed chunks are kept in one byte-bounded cache
 * shared by every store of an engine, so a warm query reads nothing.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../io/abortable.ts';
import { asSourceError } from '../io/byte-source.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';
import { inflateExactly } from '../io/inflate.ts';
import { Lru } from '../io/lru.ts';
import { isTransient } from '../io/timed-fetch.ts';
import type { LayerGrid } from './raster-engine.ts';
import type { RasterFile, TileData } from './raster-file.ts';
import {
  dataChunkBytes,
  dataChunkKey,
  deltaDecode,
  previewChunkKey,
  previewSize,
  RANGE_CHUNK_KEY,
  zlibBound,
} from './zarr-layout.ts';

/** Objects read whole, by dataset path: shared by every store of one engine. */
export class ObjectCache {
  private readonly held: Lru<string, Uint8Array>;
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();
  /** Objects read and their bytes (diagnostics, tests). */
  readonly stats = { reads: 0, bytes: 0 };

  constructor(
    private readonly dataset: DatasetLocation,
    maxBytes = 32 * 1024 * 1024,
    /** Reads outlive the query that started them (another may wait on the same object); closing the engine stops them. */
    private readonly lifetime?: AbortSignal,
    /** The engine's bound over every cache (src/io/memory-budget.ts). */
    budget?: MemoryBudget,
  ) {
    this.held = new Lru(maxBytes, undefined, budget);
  }

  /**
   * The bytes of `path`, at most `bound` of them: an object longer than that is cut there (its
   * decoding then fails), so one read never moves more than the reader can use.
   */
  read(path: string, bound: number, signal?: AbortSignal): Promise<Uint8Array> {
    const held = this.held.get(path);
    if (held) return Promise.resolve(held);
    let p = this.inFlight.get(path);
    if (!p) {
      const source = this.dataset.open(path);
      p = source
        .read(0, bound, this.lifetime)
        .then((bytes) => {
          this.stats.reads++;
          this.stats.bytes += bytes.length;
          this.held.set(path, bytes, bytes.length);
          return bytes;
        })
        .catch((err: unknown) => {
          const error = asSourceError(err, this.dataset.resolve(path), this.lifetime);
          // An object the catalog implies that the host refuses for good (404, a page instead): a store
          // is never rewritten in place (its name carries its build's id), so this is a catalog that no
          // longer matches the host. The engine reads catalog.json again once and answers from it.
          if (error.code === 'dataset_unavailable' && !isTransient(error)) {
            throw new ClimateQueryError(
              'dataset_changed',
              `${error.message} The dataset on the host is not the one its catalog.json lists: a redeploy under way, or a dataset copied in part. Ask again in a moment; otherwise copy the dataset to the host again, whole.`,
              { cause: error },
            );
          }
          throw error;
        })
        .finally(() => {
          this.inFlight.delete(path);
          source.close?.().catch(() => undefined);
        });
      this.inFlight.set(path, p);
      p.catch(() => undefined);
    }
    return abortable(p, signal);
  }

  /** Forgets `path` (bytes that did not decode: a fresh read may heal). */
  drop(path: string): void {
    this.held.delete(path);
  }

  clear(): void {
    this.held.close();
  }
}

/** Reads object `path` and inflates it to exactly `size` bytes; a damaged object is read once more, then refused. */
async function readInflated(cache: ObjectCache, path: string, size: number, what: string, signal?: AbortSignal) {
  for (let attempt = 0; ; attempt++) {
    const bytes = await cache.read(path, zlibBound(size), signal);
    try {
      return await inflateExactly(bytes, size, what);
    } catch (err) {
      // Bytes that do not decode may be a host's fault (a cut or shifted answer): not kept, read once more.
      cache.drop(path);
      if (attempt > 0 || signal?.aborted) throw err;
    }
  }
}

/** Opens file `index` of a `zarr` layer as a {@link RasterFile} of its chunks. Opening reads nothing. */
export function openZarrStore(
  dataset: DatasetLocation,
  layer: RasterLayerEntry,
  index: number,
  cache: ObjectCache,
): RasterFile {
  const entry = layer.files[index]!;
  const arrays = layer.zarr!;
  const { chunk, variable } = arrays;
  const dates = entry.periods.length;
  const size = dataChunkBytes(dates, chunk);
  const url = dataset.resolve(entry.path);
  return {
    url,
    width: layer.width,
    height: layer.height,
    tileWidth: chunk,
    tileHeight: chunk,
    bands: dates,
    stats: cache.stats,
    async readTile(tx, ty, bands, signal): Promise<TileData> {
      const key = `${entry.path}/${dataChunkKey(variable, tx, ty)}`;
      const raw = await readInflated(cache, key, size, `${url}/${dataChunkKey(variable, tx, ty)}`, signal);
      const values = new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
      deltaDecode(values);
      const x0 = tx * chunk;
      const y0 = ty * chunk;
      const width = Math.min(chunk, layer.width - x0);
      const height = Math.min(chunk, layer.height - y0);
      const samples = bands.length;
      const data = new Int16Array(width * height * samples);
      for (let s = 0; s < samples; s++) {
        const band = bands[s]!;
        if (!(band >= 0 && band < dates)) {
          throw new ClimateQueryError('dataset_unavailable', `${url} has no date ${band + 1}; it holds ${dates}.`);
        }
        for (let r = 0; r < height; r++) {
          const from = (band * chunk + r) * chunk;
          for (let c = 0; c < width; c++) data[(r * width + c) * samples + s] = values[from + c]!;
        }
      }
      return { x0, y0, width, height, samples, data };
    },
    close: async () => undefined,
  };
}

/**
 * One date of a `zarr` layer's preview (its grid reduced by the layer's preview factor), in the
 * layer's unit (NaN where there is no value), with the smallest and largest value of the full grid
 * at that date for the legend: two objects, read at once.
 */
export async function readZarrPreview(
  dataset: DatasetLocation,
  layer: RasterLayerEntry,
  index: number,
  band: number,
  cache: ObjectCache,
  decode: (raw: number) => number,
  signal?: AbortSignal,
): Promise<LayerGrid> {
  const entry = layer.files[index]!;
  const { variable, previewFactor: f } = layer.zarr!;
  const p = previewSize(layer.width, layer.height, f);
  const dates = entry.periods.length;
  const url = dataset.resolve(entry.path);
  const planeKey = previewChunkKey(variable, band);
  const [plane, range] = await Promise.all([
    readInflated(cache, `${entry.path}/${planeKey}`, p.width * p.height * 2, `${url}/${planeKey}`, signal),
    cache.read(`${entry.path}/${RANGE_CHUNK_KEY}`, dates * 4, signal),
  ]);
  if (range.length !== dates * 4) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${url}/${RANGE_CHUNK_KEY} holds ${range.length} bytes, not the ${dates * 4} of ${dates} dates; copy the dataset to the host again.`,
    );
  }
  const stored = new Int16Array(plane.buffer, plane.byteOffset, plane.byteLength / 2);
  deltaDecode(stored);
  const values = new Float32Array(stored.length);
  for (let i = 0; i < stored.length; i++) values[i] = stored[i] === layer.nodata ? Number.NaN : decode(stored[i]!);
  const extremes = new Int16Array(range.slice().buffer);
  const [lo, hi] = [extremes[2 * band]!, extremes[2 * band + 1]!];
  const [west, , , north] = layer.bbox;
  const resX = layer.resolution?.[0] ?? (layer.bbox[2] - west) / layer.width;
  const resY = layer.resolution?.[1] ?? (north - layer.bbox[1]) / layer.height;
  return {
    width: p.width,
    height: p.height,
    values,
    bbox: [west, north - p.height * f * resY, west + p.width * f * resX, north],
    min: lo === layer.nodata ? Number.NaN : decode(lo),
    max: hi === layer.nodata ? Number.NaN : decode(hi),
    unit: layer.unit,
  };
}
