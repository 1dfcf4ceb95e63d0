/**
 * The `zarr-store` layout's reader: a Zarr store as another tool published it, referenced in
 * place (zarr-store-file.ts, loaded the first time a dataset has such a layer: a page whose
 * dataset has none never downloads it). Its map preview reads every chunk of the date (a published
 * store has no reduced plane), bounded by the preview's pixels and the query's byte plan.
 */
import type { LayoutReader } from '../raster-reader.ts';
import { tilePreview } from './tile-preview.ts';

export const zarrStoreReader: LayoutReader = {
  open: async (ctx, layer, index) =>
    (await import('../zarr-store-file.ts')).openStoreArray(ctx.dataset, layer, index, ctx.objects),
  previewPixels: (layer) => layer.width * layer.height,
  preview: tilePreview,
};
