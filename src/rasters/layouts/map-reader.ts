/**
 * The `map` layout's reader: a north-up tiled GeoTIFF (a COG) per file group (raster-file.ts), checked
 * against what the catalog records of it (size, header, tile digests, grid) as it is opened. Its
 * map preview reads the file's largest overview within the preview's longest edge where the build
 * wrote overviews (a grid wider or taller than that: on the 1,800 × 1,150 px real-size grid a
 * monthly year's 900 × 575 overview, ≈ 1.4 MB, where every tile of the file is ≈ 5.5 MB), with the
 * legend's range from the full grid's statistics in the file; else every tile of the file's band.
 */
import { ClimateQueryError } from '../../contract/errors.ts';
import { openRasterFile } from '../raster-file.ts';
import type { LayoutReader } from '../raster-reader.ts';
import { PREVIEW_MAX_EDGE } from '../zarr-layout.ts';
import { gridOf } from './tile-preview.ts';

export const mapReader: LayoutReader = {
  async open(ctx, layer, index) {
    const entry = layer.files[index]!;
    const known = ctx.listed.get(entry.path);
    const expected = known ? { bytes: known.bytes, ...(known.sha256 ? { sha256: known.sha256 } : {}) } : {};
    const f = await openRasterFile(ctx.dataset.open(entry.path, expected), ctx.cache, ctx.lifetime, {
      header: known?.header,
      tiles: known?.tiles,
      grid: { width: layer.width, height: layer.height, bands: entry.periods.length },
    });
    if (f.width !== layer.width || f.height !== layer.height || f.bands < entry.periods.length) {
      await f.close().catch(() => undefined);
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${entry.path} is ${f.width}×${f.height} with ${f.bands} bands, but catalog.json says ${layer.width}×${layer.height} with ${entry.periods.length}; rebuild the dataset.`,
      );
    }
    return f;
  },

  // Bounded by the full grid: a file without overviews is previewed whole.
  previewPixels: (layer) => layer.width * layer.height,

  async preview(ctx, layer, index, band, signal) {
    const f = await ctx.file(layer, index, signal);
    const fits = (o: { width: number; height: number }) => o.width <= PREVIEW_MAX_EDGE && o.height <= PREVIEW_MAX_EDGE;
    const reduced = fits(f) ? undefined : f.overviews?.find(fits);
    const range = reduced ? ((await f.bandRange?.(band)) ?? null) : null;
    return gridOf(ctx, layer, index, reduced ?? f, band, range, signal);
  },
};
