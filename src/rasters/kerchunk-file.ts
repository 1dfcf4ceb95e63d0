/**
 * A `kerchunk` layer's file: its reference is read whole once (bounded; checked against the
 * catalog's size and SHA-256 where the catalog lists it), then the array is read as a published
 * store's (zarr-store-file.ts), each chunk a range of the file the reference names.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { MAX_TEXT_BYTES } from '../dataset/location.ts';
import { parseKerchunk } from './kerchunk-refs.ts';
import type { RasterFile, ReaderContext } from './raster-reader.ts';
import { openStoreArray } from './zarr-store-file.ts';

/** Opens file `index` (the reference) of a `kerchunk` layer: one read of the reference. */
export async function openKerchunk(ctx: ReaderContext, layer: RasterLayerEntry, index: number): Promise<RasterFile> {
  const entry = layer.files[index]!;
  const url = ctx.dataset.resolve(entry.path);
  const known = ctx.listed.get(entry.path);
  const source = ctx.dataset.open(
    entry.path,
    known ? { bytes: known.bytes, ...(known.sha256 ? { sha256: known.sha256 } : {}) } : {},
  );
  let text: string;
  try {
    const bytes = await source.read(0, Math.min(known?.bytes ?? MAX_TEXT_BYTES, MAX_TEXT_BYTES) + 1, ctx.lifetime);
    if (bytes.length > MAX_TEXT_BYTES)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} is larger than the ${MAX_TEXT_BYTES} bytes a reference may be.`,
      );
    text = new TextDecoder().decode(bytes);
  } finally {
    await source.close?.().catch(() => undefined);
  }
  const bad = (why: string) =>
    new ClimateQueryError('dataset_unavailable', `The kerchunk reference ${url} ${why} Add the layer again.`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw bad(`is not JSON (${(err as Error).message}).`);
  }
  return openStoreArray(ctx.dataset, layer, index, ctx.objects, parseKerchunk(json, bad));
}
