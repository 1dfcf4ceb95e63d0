/**
 * The `zarr-store` layout's reader: a Zarr v2 store as another tool published it, referenced in
 * place (zarr-store-file.ts). Its map preview reads every chunk of the date (a published store has
 * no reduced plane), bounded by the preview's pixels and the engine's preview budget.
 */
import type { LayoutReader } from '../raster-reader.ts';
import { openStoreArray } from '../zarr-store-file.ts';
import { tilePreview } from './tile-preview.ts';

export const zarrStoreReader: LayoutReader = {
  open: async (ctx, layer, index) => openStoreArray(ctx.dataset, layer, index, ctx.objects),
  previewPixels: (layer) => layer.width * layer.height,
  preview: tilePreview,
};
