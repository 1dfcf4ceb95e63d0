/**
 * A `cog-collection` layer (one Cloud-Optimized GeoTIFF per date, catalog {@link CogCollection})
 * seen as the engine's grid of tiles with a band per date. A tile of the engine is a window of at
 * most 32 × 32 px inside one tile of the files: a point-year then holds 365 small windows, not
 * 365 decoded 512² tiles. Each date's file is opened once (its header and tile index, geotiff.js
 * through the block cache) and checked against the first file's grid; the files of the dates a
 * query touches are opened at once, and a window costs its file's one tile read. Values come out
 * in the layer's stored units (divided by its step, which the engine multiplies back), NaN for
 * no data.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { cogPath, type RasterLayerEntry } from '../dataset/catalog.ts';
import { runLimited } from '../io/run-limited.ts';
import { openRasterFile } from './raster-file.ts';
import type { RasterFile, ReaderContext, TileData } from './raster-reader.ts';

/** The engine's tile edge over a COG collection, px: small windows, each inside one tile of the files. */
export const COG_WINDOW = 32;

/** Opens file `index` (the folder) of a `cog-collection` layer. Opening reads nothing. */
export function openCogCollection(ctx: ReaderContext, layer: RasterLayerEntry, index: number): RasterFile {
  const cog = layer.cog!;
  const entry = layer.files[index]!;
  const url = ctx.dataset.resolve(entry.path);
  const [tw, th] = cog.tile;
  // The window divides the files' tile, so it never straddles two of them.
  const win = (edge: number) => (edge % COG_WINDOW === 0 ? COG_WINDOW : edge);
  const [ww, wh] = [win(tw), win(th)];
  const files = new Map<number, Promise<RasterFile>>();
  const stats = { reads: 0, bytes: 0 };

  /** The file of date `band`, opened once and checked against the layer's grid. */
  function dateFile(band: number): Promise<RasterFile> {
    let p = files.get(band);
    if (!p) {
      const path = `${entry.path}/${cogPath(cog.template, entry.periods[band]!)}`;
      p = openRasterFile(ctx.dataset.open(path), ctx.cache, ctx.lifetime, {
        grid: { width: layer.width, height: layer.height, bands: 1 },
      }).then((f) => {
        if (f.tileWidth !== tw || f.tileHeight !== th) {
          void f.close();
          throw new ClimateQueryError(
            'dataset_unavailable',
            `${path} has tiles of ${f.tileWidth}×${f.tileHeight} px where the collection's have ${tw}×${th}; add the layer again.`,
          );
        }
        return f;
      });
      files.set(band, p);
      p.catch(() => files.delete(band));
    }
    return p;
  }

  const step = layer.scale;
  const nodata = cog.nodata;
  return {
    url,
    width: layer.width,
    height: layer.height,
    tileWidth: ww,
    tileHeight: wh,
    bands: entry.periods.length,
    stats,
    readTile(tx, ty, bands, signal) {
      const x0 = tx * ww;
      const y0 = ty * wh;
      return read(x0, y0, Math.min(ww, layer.width - x0), Math.min(wh, layer.height - y0), bands, signal);
    },
    // Any window inside one tile of the files: a build copying the collection reads each file tile once.
    readWindow: (x0, y0, x1, y1, bands, signal) => read(x0, y0, x1 - x0, y1 - y0, bands, signal),
    async close() {
      const open = [...files.values()];
      files.clear();
      await Promise.all(open.map((p) => p.then((f) => f.close()).catch(() => undefined)));
    },
  };

  /** Pixels [x0, x0 + width) × [y0, y0 + height) of every date of `bands`, inside one tile of the files. */
  async function read(
    x0: number,
    y0: number,
    width: number,
    height: number,
    bands: number[],
    signal?: AbortSignal,
  ): Promise<TileData> {
    const samples = bands.length;
    const data = new Float64Array(width * height * samples).fill(Number.NaN);
    // The files' tile holding this window, read with every date's file at once.
    const [ftx, fty] = [Math.floor(x0 / tw), Math.floor(y0 / th)];
    await runLimited(
      bands.map((b, s) => async () => {
        if (!(b >= 0 && b < entry.periods.length))
          throw new ClimateQueryError('dataset_unavailable', `${url} has no date ${b + 1}.`);
        const f = await dateFile(b);
        const before = { ...f.stats };
        const t = f.readWindow
          ? await f.readWindow(x0, y0, x0 + width, y0 + height, [0], signal)
          : await f.readTile(ftx, fty, [0], signal);
        stats.reads += f.stats.reads - before.reads;
        stats.bytes += f.stats.bytes - before.bytes;
        for (let r = 0; r < height; r++) {
          const from = (y0 + r - t.y0) * t.width + (x0 - t.x0);
          for (let c = 0; c < width; c++) {
            const v = Number(t.data[from + c]);
            if (!Number.isNaN(v) && v !== nodata) data[(r * width + c) * samples + s] = v / step;
          }
        }
      }),
      ctx.concurrency,
    );
    return { x0, y0, width, height, samples, data };
  }
}
