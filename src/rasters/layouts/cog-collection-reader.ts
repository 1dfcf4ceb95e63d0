/**
 * The `cog-collection` layout's reader: one Cloud-Optimized GeoTIFF per date, referenced in place
 * (cog-collection-file.ts). Its map preview reads the date's file tile by tile, bounded by the
 * preview's pixels (a global CHIRPS grid of 7,200 × 2,400 px is over it: its points and fields
 * still answer).
 */
import type { LayoutReader } from '../raster-reader.ts';
import { tilePreview } from './tile-preview.ts';

export const cogCollectionReader: LayoutReader = {
  // Loaded the first time a dataset has such a layer: a page whose dataset has none never downloads it.
  open: async (ctx, layer, index) => (await import('../cog-collection-file.ts')).openCogCollection(ctx, layer, index),
  previewPixels: (layer) => layer.width * layer.height,
  preview: tilePreview,
};
