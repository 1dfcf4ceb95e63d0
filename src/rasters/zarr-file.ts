/**
 * The reader of a `zarr` layer's stores (zarr-layout.ts): a store seen as a
 * grid of tiles (its chunks), each tile one object read whole by its key,
 * which is computed from the tile and the catalog: no store metadata and no
 * index are read first. Compressed chunks are kept in one byte-bounded cache
 * shared by every store of an engine, so a warm query reads nothing. A store
 * with digests (its entry's `id`) proves each object is its own before it is
 * decoded or cached: the object's digest is read by range beside it, in the
 * same round of requests (chunk-digest.ts).
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../io/abortable.ts';
import { asSourceError, isRefusal } from '../io/byte-source.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';
import { inflateExactly } from '../io/inflate.ts';
import {
  DIGEST_BYTES,
  DIGESTS_KEY,
  type DigestSlot,
  digestShape,
  digestSlot,
  digestsFileBytes,
  objectDigest,
  sameDigest,
} from './chunk-digest.ts';
import { Lru } from '../io/lru.ts';
import { isTransient } from '../io/timed-fetch.ts';
import type { LayerGrid, RasterFile, TileData } from './raster-reader.ts';
import {
  dataChunkBytes,
  dataChunkKey,
  deltaDecode,
  previewChunkKey,
  previewSize,
  RANGE_CHUNK_KEY,
  zlibBound,
} from './zarr-layout.ts';

/** Errors of objects whose bytes are not their digest's: read once more, like bytes that do not decode. */
const notTheirs = new WeakSet<object>();

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

  /** Whether the bytes of `path` are held (a read of it would send nothing). */
  has(path: string): boolean {
    return this.held.get(path) !== undefined;
  }

  /**
   * The bytes of `path`, at most `bound` of them: an object longer than that is cut there (its
   * decoding then fails), so one read never moves more than the reader can use. `verify` checks
   * the bytes before they are kept: bytes it refuses are never cached.
   */
  read(
    path: string,
    bound: number,
    signal?: AbortSignal,
    verify?: (bytes: Uint8Array) => Promise<void>,
  ): Promise<Uint8Array> {
    return this.readAt(path, path, 0, bound, undefined, signal, verify);
  }

  /**
   * Bytes `offset` … `offset + length` of `path` (a shard's index or one of its chunks), kept under
   * their own key; `size` is the file's size as the catalog records it (another means it changed),
   * undefined where it records none (a file a kerchunk reference points into).
   */
  readRange(
    path: string,
    offset: number,
    length: number,
    size: number | undefined,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    return this.readAt(`${path}@${offset}+${length}`, path, offset, length, size, signal);
  }

  private readAt(
    key: string,
    path: string,
    offset: number,
    length: number,
    size: number | undefined,
    signal?: AbortSignal,
    verify?: (bytes: Uint8Array) => Promise<void>,
  ): Promise<Uint8Array> {
    const held = this.held.get(key);
    if (held) return Promise.resolve(held);
    let p = this.inFlight.get(key);
    if (!p) {
      const source = this.dataset.open(path, size === undefined ? undefined : { bytes: size });
      p = source
        .read(offset, length, this.lifetime)
        .then(async (bytes) => {
          this.stats.reads++;
          this.stats.bytes += bytes.length;
          await verify?.(bytes);
          this.held.set(key, bytes, bytes.length);
          return bytes;
        })
        .catch((err: unknown) => {
          // Bytes that are not the store's own, or a file refused for what it is (a link out of the
          // dataset): reported as they are (a redeploy never rewrites a store's object).
          if (notTheirs.has(err as object) || isRefusal(err)) throw err;
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
          this.inFlight.delete(key);
          source.close?.().catch(() => undefined);
        });
      this.inFlight.set(key, p);
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

/** How an object of a store with digests proves it is the one its build wrote. */
interface ObjectCheck {
  /** The store's id and the object's key in it. */
  id: string;
  key: string;
  /** Reads the object's digest (from the store's digests file). */
  expected(signal?: AbortSignal): Promise<Uint8Array>;
}

/**
 * Reads object `path` (at most `bound` bytes), checked against its digest when `check` is given:
 * the digest's read starts with the object's (not when the object is held), and bytes that do not
 * match are refused and never cached.
 */
function readChecked(
  cache: ObjectCache,
  path: string,
  bound: number,
  what: string,
  check: ObjectCheck | undefined,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  if (!check || cache.has(path)) return cache.read(path, bound, signal);
  // Not tied to this caller: the object's read is shared with every query waiting on it.
  const expected = check.expected();
  expected.catch(() => undefined);
  return cache.read(path, bound, signal, async (bytes) => {
    const [got, want] = await Promise.all([objectDigest(check.id, check.key, bytes), expected]);
    if (sameDigest(got, want)) return;
    const error = new ClimateQueryError(
      'dataset_unavailable',
      `${what} is not the object its build wrote: its bytes do not match the digest its store records for it (another object's bytes, or rewritten). Nothing was answered from it; copy the dataset to the host again.`,
    );
    notTheirs.add(error);
    throw error;
  });
}

/**
 * Reads object `path` and inflates it to exactly `size` bytes; a damaged object, or one that is
 * not its store's, is read once more (a host's passing fault), then refused.
 */
async function readInflated(
  cache: ObjectCache,
  path: string,
  size: number,
  what: string,
  signal?: AbortSignal,
  check?: ObjectCheck,
) {
  for (let attempt = 0; ; attempt++) {
    let bytes: Uint8Array;
    try {
      bytes = await readChecked(cache, path, zlibBound(size), what, check, signal);
    } catch (err) {
      if (notTheirs.has(err as object) && attempt === 0 && !signal?.aborted) continue;
      throw err;
    }
    try {
      return await inflateExactly(bytes, size, what);
    } catch (err) {
      // Bytes that do not decode may be a host's fault (a cut or shifted answer): not kept, read once more.
      cache.drop(path);
      if (attempt > 0 || signal?.aborted) throw err;
    }
  }
}

/**
 * The check of object `key` of store `index` of `layer`, or undefined for a store written
 * before stores had digests (its entry has no id). The digest is one ranged read of the store's
 * digests file, whose size the store's shape fixes (a file of another size is another store's).
 */
function objectCheck(
  dataset: DatasetLocation,
  layer: RasterLayerEntry,
  index: number,
  key: string,
  slot: DigestSlot,
): ObjectCheck | undefined {
  const entry = layer.files[index]!;
  if (entry.id === undefined) return undefined;
  const shape = digestShape(entry.periods.length, layer.width, layer.height, layer.zarr!.chunk);
  const at = digestSlot(shape, slot) * DIGEST_BYTES;
  return {
    id: entry.id,
    key,
    async expected(signal) {
      const source = dataset.open(`${entry.path}/${DIGESTS_KEY}`, { bytes: digestsFileBytes(shape) });
      try {
        return await source.read(at, DIGEST_BYTES, signal);
      } finally {
        await source.close?.().catch(() => undefined);
      }
    },
  };
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
      const inStore = dataChunkKey(variable, tx, ty);
      const check = objectCheck(dataset, layer, index, inStore, { kind: 'data', tx, ty });
      const raw = await readInflated(cache, `${entry.path}/${inStore}`, size, `${url}/${inStore}`, signal, check);
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
    readInflated(
      cache,
      `${entry.path}/${planeKey}`,
      p.width * p.height * 2,
      `${url}/${planeKey}`,
      signal,
      objectCheck(dataset, layer, index, planeKey, { kind: 'preview', date: band }),
    ),
    readChecked(
      cache,
      `${entry.path}/${RANGE_CHUNK_KEY}`,
      dates * 4,
      `${url}/${RANGE_CHUNK_KEY}`,
      objectCheck(dataset, layer, index, RANGE_CHUNK_KEY, { kind: 'range' }),
      signal,
    ),
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
