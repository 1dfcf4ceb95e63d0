/**
 * The reads of one query: every tile the needed pixels fall in, of every file of the plan, once
 * each, with the plan's bands. The whole query's cost is planned before the first read, so a
 * chunking that does not suit it is refused unread (read-cost.ts); then all tiles are read at once,
 * as many in flight as the engine allows.
 */
import { throwIfAborted } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { runLimited } from '../io/run-limited.ts';
import type { CoveredPixel } from './coverage.ts';
import { layerTypeLabel, type ReadPlan } from './layer-plan.ts';
import { type RasterFile, type ReaderContext, type TileData, tileRowOf } from './raster-reader.ts';
import { checkReadCost, tilesCost } from './read-cost.ts';

/** The decoded tiles of one file, keyed by {@link tileKey}. */
export interface FileTiles {
  file: RasterFile;
  tiles: Map<string, TileData>;
}

/** The key of tile (`tx`, `ty`) in {@link FileTiles.tiles}. */
export function tileKey(tx: number, ty: number): string {
  return `${tx}/${ty}`;
}

/** Reads the tiles `needs` fall in for every file of `plan`; by the plan's file index. */
export async function readPlannedTiles(
  ctx: ReaderContext,
  layer: RasterLayerEntry,
  plan: ReadPlan,
  needs: CoveredPixel[][],
  signal?: AbortSignal,
): Promise<Map<number, FileTiles>> {
  const out = new Map<number, FileTiles>();
  if (!needs.some((n) => n.length > 0)) return out;
  const jobs: Array<() => Promise<void>> = [];
  // Open every file of the plan at once (headers in parallel), then queue their tiles.
  const files = await Promise.all(plan.files.map((fb) => ctx.file(layer, fb.file, signal)));
  const cost = { chunks: 0, bytes: 0 };
  for (const [i, fb] of plan.files.entries()) {
    const f = files[i]!;
    const ft: FileTiles = { file: f, tiles: new Map() };
    out.set(fb.file, ft);
    const wanted = new Map<string, [number, number]>();
    for (const pixels of needs) {
      for (const px of pixels) {
        const tx = Math.floor(px.col / f.tileWidth);
        const ty = tileRowOf(f, px.row);
        const key = tileKey(tx, ty);
        if (wanted.has(key)) continue;
        wanted.set(key, [tx, ty]);
        jobs.push(async () => {
          throwIfAborted(signal);
          ft.tiles.set(key, await f.readTile(tx, ty, fb.bands, signal));
        });
      }
    }
    const c = tilesCost(f, wanted.values(), fb.bands);
    cost.chunks += c.chunks;
    cost.bytes += c.bytes;
  }
  checkReadCost(cost, ctx.maxReadBytes, `This query of ${layerTypeLabel(layer)}`);
  await runLimited(jobs, ctx.concurrency);
  return out;
}
