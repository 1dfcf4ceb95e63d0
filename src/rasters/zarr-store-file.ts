/**
 * A published Zarr array (v2, or v3 with or without shards; its catalog {@link StoreArray}: dims
 * time × lat × lon) seen as the engine's grid of tiles: a tile is one chunk's lat × lon window,
 * north up (an inner chunk's, in a sharded array; zarr-shard.ts finds it in its shard). Its chunk keys come
 * from the catalog, so a point reads the chunks that hold its pixel for the dates asked, nothing
 * before them; chunks are kept in the engine's object cache. Values come out in the layer's
 * stored units (CF packing undone, then divided by the layer's step, which the engine multiplies
 * back), NaN where the store says no value.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { isAbsence } from '../io/byte-source.ts';
import type { RasterLayerEntry, StoreArray } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import type { RasterFile } from './raster-reader.ts';
import { decompress, dtypeBytes, elements, storedDtype, unfilter, unshuffle } from './zarr-codecs.ts';
import type { ObjectCache } from './zarr-file.ts';
import { readShardChunk, shardPlace } from './zarr-shard.ts';
import { endsWithCrc32c } from '../io/crc32c.ts';
import { type KerchunkRefs, referencedPath } from './kerchunk-refs.ts';

/** The key of chunk (t, y, x) of `a`'s chunk grid (its shards', for a sharded array). */
export function storeChunkKey(a: StoreArray, t: number, y: number, x: number): string {
  return `${a.variable}/${a.keyPrefix ?? ''}${[t, y, x].join(a.separator)}`;
}

/** Opens file `index` (the store) of a `zarr-store` layer. Opening reads nothing. */
export function openStoreArray(
  dataset: DatasetLocation,
  layer: RasterLayerEntry,
  index: number,
  cache: ObjectCache,
  refs?: KerchunkRefs,
): RasterFile {
  const a = layer.storeArray!;
  const entry = layer.files[index]!;
  const url = dataset.resolve(entry.path);
  const [T, H, W] = a.shape;
  const [ct, ch, cw] = a.shard?.chunks ?? a.chunks;
  const chunkBytes = ct * ch * cw * dtypeBytes(storedDtype(a.dtype, a.filters));
  // A compressed chunk is never much larger than its values; a host answering more is cut there.
  const maxStored = chunkBytes + 1024 + Math.ceil(chunkBytes / 16) + (a.checksum ? 4 : 0);

  /** The stored bytes of chunk (t, y, x), or null where the store left it out (its fill value throughout). */
  async function stored(t: number, y: number, x: number, signal?: AbortSignal) {
    if (a.shard) {
      const place = shardPlace({ ...a, shard: a.shard }, t, y, x);
      const key = storeChunkKey(a, ...place.shard);
      const path = `${entry.path}/${key}`;
      const got = await readShardChunk(
        { ...a, shard: a.shard },
        cache,
        path,
        `${url}/${key}`,
        place,
        maxStored,
        signal,
      );
      return got && { ...got, what: `${url}/${key} chunk ${place.inner}` };
    }
    const key = storeChunkKey(a, t, y, x);
    if (refs) return referenced(key, signal);
    try {
      const bytes = await cache.read(`${entry.path}/${key}`, maxStored, signal);
      return { bytes, key: `${entry.path}/${key}`, what: `${url}/${key}` };
    } catch (err) {
      // A chunk the store left out is its fill value throughout (Zarr's rule; zarr-python leaves out
      // chunks of fill only, the ocean's): no value, as xarray reads it. A host that fails is an error.
      if (isAbsence(err)) return null;
      throw err;
    }
  }
  const targets = new Set(layer.kerchunk?.targets ?? []);
  /** Chunk `key` where a kerchunk reference says it is: inline, a range of a file, or absent (its fill value). */
  async function referenced(key: string, signal?: AbortSignal) {
    const ref = await refs!.get(key);
    if (ref === undefined) return null;
    const what = `${url} ${key}`;
    if ('inline' in ref) return { bytes: ref.inline, key: `${entry.path}#${key}`, what };
    const path = referencedPath(entry.path, ref.url);
    if (path === null || !targets.has(path) || ref.length === null || ref.length > maxStored)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${what}: the reference places it at ${JSON.stringify([ref.url, ref.offset, ref.length])}, ${path === null ? 'a URL this reads not (http, https or a path beside the reference)' : !targets.has(path) ? "in a file the catalog does not list as the reference's" : 'not a range of at most one chunk'}; write the reference again.`,
      );
    const bytes = await cache.readRange(path, ref.offset, ref.length, undefined, signal);
    if (bytes.length !== ref.length)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${what}: the reference places it at bytes ${ref.offset} + ${ref.length} of ${ref.url}, past that file's end; write the reference again.`,
      );
    return { bytes, key: `${path}@${ref.offset}+${ref.length}`, what };
  }
  const missing = a.missing.filter((m): m is number => m !== null);
  const [lo, hi] = a.validRange ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  const step = layer.scale;
  const base = layer.offset;

  /** Chunk (t, y, x) decoded into values in the layer's stored units, NaN for no value. */
  async function chunk(t: number, y: number, x: number, signal?: AbortSignal): Promise<Float64Array> {
    const got = await stored(t, y, x, signal);
    if (got === null) return new Float64Array(ct * ch * cw).fill(Number.NaN);
    let bytes: Uint8Array;
    try {
      let raw = got.bytes;
      if (a.checksum) {
        if (!endsWithCrc32c(raw))
          throw new ClimateQueryError(
            'dataset_unavailable',
            `${got.what} fails its CRC-32C; copy the store to the host again.`,
          );
        raw = raw.subarray(0, raw.length - 4);
      }
      bytes = await decompress(a.compressor, raw, chunkBytes, got.what);
    } catch (err) {
      cache.drop(got.key);
      throw err;
    }
    const v = elements(unshuffle(bytes, a.filters), storedDtype(a.dtype, a.filters));
    unfilter(v, a.filters);
    for (let i = 0; i < v.length; i++) {
      const s = v[i]!;
      // NaN is no value whether or not the store names it (xarray's float fill_value is NaN).
      if (Number.isNaN(s) || missing.includes(s) || s < lo || s > hi) v[i] = Number.NaN;
      else v[i] = (s * a.scaleFactor + a.addOffset - base) / step;
    }
    return v;
  }

  /** Store rows holding north-up rows y0 … y0+height−1 of tile row `ty`, as chunk rows. */
  const storeRow = (r: number) => (a.latAscending ? H - 1 - r : r);
  // North-up tiles start this far above the grid so that each is one row of the store's chunks.
  const rowOffset = a.latAscending ? (ch - (H % ch)) % ch : 0;
  /** North-up rows of tile row `ty`: [y0, y0 + height). */
  const tileRows = (ty: number) => {
    const y0 = Math.max(0, ty * ch - rowOffset);
    return { y0, height: Math.min(H, (ty + 1) * ch - rowOffset) - y0 };
  };
  function chunkRows(ty: number): number[] {
    const { y0, height } = tileRows(ty);
    const rows = [storeRow(y0), storeRow(y0 + height - 1)].sort((p, q) => p - q) as [number, number];
    const ys: number[] = [];
    for (let yc = Math.floor(rows[0] / ch); yc <= Math.floor(rows[1] / ch); yc++) ys.push(yc);
    return ys;
  }
  const chunkTimes = (bands: number[]) => [...new Set(bands.map((b) => Math.floor(b / ct)))];

  return {
    url,
    width: W,
    height: H,
    tileWidth: cw,
    tileHeight: ch,
    rowOffset,
    bands: T,
    stats: cache.stats,
    readCost(_tx, ty, bands) {
      const chunks = chunkTimes(bands).length * chunkRows(ty).length;
      return { chunks, bytes: chunks * chunkBytes };
    },
    async readTile(tx, ty, bands, signal) {
      const x0 = tx * cw;
      const { y0, height } = tileRows(ty);
      const width = Math.min(cw, W - x0);
      const ys = chunkRows(ty);
      for (const b of bands) {
        if (!(b >= 0 && b < T))
          throw new ClimateQueryError('dataset_unavailable', `${url} has no date ${b + 1}; it holds ${T}.`);
      }
      const ts = chunkTimes(bands);
      const chunks = new Map<string, Float64Array>();
      await Promise.all(
        ts.flatMap((t) => ys.map(async (yc) => chunks.set(`${t}/${yc}`, await chunk(t, yc, tx, signal)))),
      );
      const samples = bands.length;
      const data = new Float64Array(width * height * samples);
      for (let r = 0; r < height; r++) {
        const sr = storeRow(y0 + r);
        const yc = Math.floor(sr / ch);
        const yIn = sr - yc * ch;
        for (let s = 0; s < samples; s++) {
          const b = bands[s]!;
          const t = Math.floor(b / ct);
          const tIn = b - t * ct;
          const values = chunks.get(`${t}/${yc}`)!;
          // Chunk order C: (time, lat, lon).
          const rowAt = (tIn * ch + yIn) * cw;
          for (let c = 0; c < width; c++) data[(r * width + c) * samples + s] = values[rowAt + c]!;
        }
      }
      return { x0, y0, width, height, samples, data };
    },
    close: async () => undefined,
  };
}
