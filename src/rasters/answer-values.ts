/**
 * A query's answer from its decoded tiles: per geometry and date, the value of its pixel (a point)
 * or the covered pixels combined by the asked method (a field: zonal.ts), turned into units at each
 * file's own storage step; nodata and pixels outside the grid give null. Pure: nothing is read.
 */
import type { RasterQuery, RasterResponse } from '../contract/types.ts';
import { fileStep, type RasterLayerEntry } from '../dataset/catalog.ts';
import type { CoveredPixel } from './coverage.ts';
import type { ReadPlan } from './layer-plan.ts';
import { type TileData, tileRowOf } from './raster-reader.ts';
import { valueDecoder } from './stored-values.ts';
import { type FileTiles, tileKey } from './tile-reads.ts';
import { ZonalStats } from './zonal.ts';

/** The answer of `q` over `layer`, from the tiles `plan` read for the pixels each geometry `needs`. */
export function answerValues(
  q: RasterQuery,
  layer: RasterLayerEntry,
  plan: ReadPlan,
  needs: CoveredPixel[][],
  tiles: ReadonlyMap<number, FileTiles>,
): RasterResponse {
  // Each file decodes at its own storage step (a year added at another step keeps its own).
  const decoders = new Map(plan.files.map((fb) => [fb.file, valueDecoder(fileStep(layer, layer.files[fb.file]!))]));
  const method = q.endpoint === 'polygon' ? (q.aggregationMethod ?? 'mean') : null;
  const nodata = layer.nodata;
  const out: RasterResponse = {};
  q.geometries.forEach((g, gi) => {
    const values: Array<number | null> = new Array(plan.keys.length).fill(null);
    const pixels = needs[gi]!;
    for (const fb of plan.files) {
      const ft = tiles.get(fb.file);
      if (!ft) continue;
      const decode = decoders.get(fb.file)!;
      // Locate each pixel's value once; the bands then sit at consecutive positions.
      const located: Array<{ tile: TileData; at: number; fraction: number }> = [];
      for (const px of pixels) {
        const tile = ft.tiles.get(tileKey(Math.floor(px.col / ft.file.tileWidth), tileRowOf(ft.file, px.row)));
        if (tile)
          located.push({
            tile,
            at: ((px.row - tile.y0) * tile.width + (px.col - tile.x0)) * tile.samples,
            fraction: px.fraction,
          });
      }
      for (let s = 0; s < fb.bands.length; s++) {
        const stats = new ZonalStats();
        for (const { tile, at, fraction } of located) {
          const raw = tile.data[at + s]!;
          if (raw === nodata || Number.isNaN(raw)) continue;
          stats.add(raw, fraction);
        }
        // A point has one pixel of fraction 1, so its min, max and mean are its value.
        const raw = stats.result(method ?? 'min');
        values[fb.keyIndexes[s]!] = raw === null ? null : decode(raw, method === 'mean');
      }
    }
    out[g.key] =
      q.range === null || layer.timeScale === null
        ? (values[0] ?? null)
        : Object.fromEntries(plan.keys.map((k, i) => [k, values[i] ?? null]));
  });
  return out;
}
