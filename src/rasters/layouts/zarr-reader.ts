/**
 * The own `zarr` layout's reader (zarr-layout.ts, zarr-file.ts): a store per year whose chunk keys
 * are computed from the catalog, so opening reads nothing and a point reads its one chunk (and its
 * digest) first; its map preview is the store's reduced plane of that date and the date's range.
 */
import { previewSize } from '../zarr-layout.ts';
import { openZarrStore, readZarrPreview } from '../zarr-file.ts';
import type { LayoutReader } from '../raster-reader.ts';
import { valueDecoder } from '../stored-values.ts';
import { fileStep } from '../../dataset/catalog.ts';

export const zarrReader: LayoutReader = {
  open: async (ctx, layer, index) => openZarrStore(ctx.dataset, layer, index, ctx.objects),

  previewPixels(layer) {
    const p = previewSize(layer.width, layer.height, layer.zarr!.previewFactor);
    return p.width * p.height;
  },

  preview(ctx, layer, index, band, signal) {
    const decode = valueDecoder(fileStep(layer, layer.files[index]!));
    return readZarrPreview(ctx.dataset, layer, index, band, ctx.objects, (v) => decode(v, false), signal);
  },
};
