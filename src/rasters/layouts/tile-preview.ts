/**
 * A date of a layer, whole, read tile by tile through its file's {@link RasterFile}: the preview of
 * a layout without a reduced plane of its own (`map` files without overviews, published stores).
 * Every tile of the grid is read with that one band; values are decoded at the file's storage step.
 */
import { fileStep, type RasterLayerEntry } from '../../dataset/catalog.ts';
import { runLimited } from '../../io/run-limited.ts';
import { everyTile, type LayerGrid, type LayoutReader, type RasterFile, type ReaderContext } from '../raster-reader.ts';
import { checkReadCost, tilesCost } from '../read-cost.ts';
import { valueDecoder } from '../stored-values.ts';

export const tilePreview: LayoutReader['preview'] = async (ctx, layer, index, band, signal) =>
  gridOf(ctx, layer, index, await ctx.file(layer, index, signal), band, null, signal);

/**
 * Band `band` of `f` (file `index` of `layer`, or one of its overviews), whole. `range`: the band's
 * smallest and largest stored value on the full grid where the file records them (the legend states
 * the full-resolution range, as the `zarr` layout's does); else the range of the values read.
 */
export async function gridOf(
  ctx: ReaderContext,
  layer: RasterLayerEntry,
  index: number,
  f: RasterFile,
  band: number,
  range: [number, number] | null,
  signal?: AbortSignal,
): Promise<LayerGrid> {
  const decode = valueDecoder(fileStep(layer, layer.files[index]!));
  const values = new Float32Array(f.width * f.height).fill(Number.NaN);
  const tiles = everyTile(f);
  // A store chunked for series (thousands of dates per chunk) would decode them all for one date's map.
  checkReadCost(tilesCost(f, tiles, [band]), ctx.maxReadBytes, `The map preview of ${layer.dataType}`);
  const jobs = tiles.map(([tx, ty]) => async () => {
    const t = await f.readTile(tx, ty, [band], signal);
    for (let r = 0; r < t.height; r++) {
      for (let c = 0; c < t.width; c++) {
        const v = t.data[r * t.width + c]!;
        if ((layer.nodata !== null && v === layer.nodata) || Number.isNaN(v)) continue;
        values[(t.y0 + r) * f.width + t.x0 + c] = decode(v, false);
      }
    }
  });
  await runLimited(jobs, ctx.concurrency);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  if (range) {
    [min, max] = [decode(range[0], false), decode(range[1], false)].sort((a, b) => a - b) as [number, number];
  } else {
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
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
}
