/**
 * The `map` layout's reader: a north-up tiled GeoTIFF per file group (raster-file.ts), checked
 * against what the catalog records of it (size, header, tile digests, grid) as it is opened. Its
 * map preview reads every tile of the file's band (a monthly or undated file: ≈ 0.3 MB on the demo
 * grid, about 12 MB for a monthly year of the 1,800 × 1,150 px real-size grid).
 */
import { ClimateQueryError } from '../../contract/errors.ts';
import { runLimited } from '../../io/run-limited.ts';
import { openRasterFile } from '../raster-file.ts';
import type { LayoutReader } from '../raster-reader.ts';
import { valueDecoder } from '../stored-values.ts';
import { fileStep } from '../../dataset/catalog.ts';

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

  async preview(ctx, layer, index, band, signal) {
    const decode = valueDecoder(fileStep(layer, layer.files[index]!));
    const f = await ctx.file(layer, index, signal);
    const values = new Float32Array(f.width * f.height).fill(Number.NaN);
    const jobs: Array<() => Promise<void>> = [];
    for (let ty = 0; ty * f.tileHeight < f.height; ty++) {
      for (let tx = 0; tx * f.tileWidth < f.width; tx++) {
        jobs.push(async () => {
          const t = await f.readTile(tx, ty, [band], signal);
          for (let r = 0; r < t.height; r++) {
            for (let c = 0; c < t.width; c++) {
              const v = t.data[r * t.width + c]!;
              if (layer.nodata !== null && v === layer.nodata) continue;
              values[(t.y0 + r) * f.width + t.x0 + c] = decode(v, false);
            }
          }
        });
      }
    }
    await runLimited(jobs, ctx.concurrency);
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
    return {
      width: f.width,
      height: f.height,
      values,
      bbox: layer.bbox,
      min: min > max ? Number.NaN : min,
      max: min > max ? Number.NaN : max,
      unit: layer.unit,
    };
  },
};
