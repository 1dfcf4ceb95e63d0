/**
 * A `kerchunk` or `kerchunk-parquet` layer's file: its reference — the JSON read whole once, or the
 * Parquet form's `.zmetadata` and then each record file as its chunks are asked (bounded; checked
 * against the catalog's size and SHA-256 where the catalog lists it) — then the array read as a
 * published store's (zarr-store-file.ts), each chunk a range of the file the reference names.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { MAX_TEXT_BYTES } from '../dataset/location.ts';
import { isAbsence } from '../io/byte-source.ts';
import { parseParquetKerchunk } from './kerchunk-parquet.ts';
import { parseKerchunk } from './kerchunk-refs.ts';
import type { RasterFile, ReaderContext } from './raster-reader.ts';
import { openStoreArray } from './zarr-store-file.ts';

/** Opens file `index` (the reference) of a reference layer: one read of the reference (or its `.zmetadata`). */
export async function openKerchunk(
  ctx: ReaderContext,
  layer: RasterLayerEntry,
  index: number,
  form: 'json' | 'parquet',
): Promise<RasterFile> {
  const entry = layer.files[index]!;
  const url = ctx.dataset.resolve(entry.path);
  const parquet = form === 'parquet';
  const bad = (why: string) =>
    new ClimateQueryError('dataset_unavailable', `The kerchunk reference ${url} ${why} Add the layer again.`);
  /** File `path` of the dataset whole, at most `max` bytes; undefined where the host has none. */
  const whole = async (path: string, max: number): Promise<Uint8Array | undefined> => {
    const known = ctx.listed.get(path);
    const source = ctx.dataset.open(
      path,
      known ? { bytes: known.bytes, ...(known.sha256 ? { sha256: known.sha256 } : {}) } : {},
    );
    try {
      const bytes = await source.read(0, Math.min(known?.bytes ?? max, max) + 1, ctx.lifetime);
      if (bytes.length > max) throw bad(`holds ${path}, larger than the ${max} bytes it may be.`);
      return bytes;
    } catch (err) {
      if (isAbsence(err)) return undefined;
      throw err;
    } finally {
      await source.close?.().catch(() => undefined);
    }
  };
  const first = await whole(parquet ? `${entry.path}/.zmetadata` : entry.path, MAX_TEXT_BYTES);
  if (first === undefined) throw bad('is not there.');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(first));
  } catch (err) {
    throw bad(`is not JSON (${(err as Error).message}).`);
  }
  const refs = parquet
    ? parseParquetKerchunk(json, (rel, max) => whole(`${entry.path}/${rel}`, max), bad)
    : parseKerchunk(json, bad);
  return openStoreArray(ctx.dataset, layer, index, ctx.objects, refs);
}
