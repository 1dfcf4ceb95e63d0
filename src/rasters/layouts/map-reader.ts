/**
 * The `map` layout's reader: a north-up tiled GeoTIFF per file group (raster-file.ts), checked
 * against what the catalog records of it (size, header, tile digests, grid) as it is opened. Its
 * map preview reads every tile of the file's band (a monthly or undated file: ≈ 0.3 MB on the demo
 * grid, about 12 MB for a monthly year of the 1,800 × 1,150 px real-size grid).
 */
import { ClimateQueryError } from '../../contract/errors.ts';
import { openRasterFile } from '../raster-file.ts';
import type { LayoutReader } from '../raster-reader.ts';
import { tilePreview } from './tile-preview.ts';

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

  previewPixels: (layer) => layer.width * layer.height,

  preview: tilePreview,
};
