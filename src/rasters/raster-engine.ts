/**
 * Answers /api/point/ and /api/polygon/ from the raster layers a catalog
 * lists. Runs in the browser and in Node (no node:* imports here; Node
 * callers pass `openSource` from file-source.ts to read local files).
 *
 * Reads are planned per tile: every pixel a query needs is mapped to its
 * tile, each tile of each file is read and decoded once per query, with
 * all requested dates of that file in it (pixel-interleaved files), and all
 * tiles are fetched concurrently. Opened files (header, IFD, tile index)
 * and their byte blocks are kept for the engine's lifetime.
 *
 * Point: the value of the pixel containing the point (gdallocationinfo:
 * col = ⌊(lon − west)/resX⌋, row = ⌊(north − lat)/resY⌋; the east and
 * south edges are outside). Polygon: exactextract semantics (zonal.ts,
 * coverage.ts). Stored values are turned into units with scale and offset;
 * nodata and outside-the-grid give null.
 */
import { ClimateQueryError, fieldError, throwIfAborted } from '../contract/errors.ts';
import { refuseSwapped } from '../contract/swapped-coordinates.ts';
import type { RasterQuery, RasterResponse } from '../contract/types.ts';
import { type Catalog, fileStep, type RasterLayerEntry } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { type ForeignOpener, noForeign, withForeign } from '../dataset/foreign.ts';
import type { BlockCacheOptions } from './cached-source.ts';
import { coverageWindow, MAX_POLYGON_CELLS, polygonCoverage, type CoveredPixel, type GridSpec } from './coverage.ts';
import { findLayer, gridLongitude, gridOf, planRead, ringsOnGrid, type ReadPlan } from './layer-plan.ts';
import { readerOf } from './layouts/registry.ts';
import { DEFLATE, warmDecoder } from './raster-file.ts';
import { type LayerGrid, type RasterFile, type ReaderContext, type TileData, tileRowOf } from './raster-reader.ts';
import { valueDecoder } from './stored-values.ts';
import { checkReadCost, DEFAULT_MAX_READ_BYTES, tilesCost } from './read-cost.ts';
import { ZonalStats } from './zonal.ts';
import { ObjectCache } from './zarr-file.ts';
import { abortable, onAbort } from '../io/abortable.ts';
import { ByteGate } from '../io/byte-gate.ts';
import { DEFAULT_MEMORY_BYTES } from '../io/memory-budget.ts';
import { runLimited } from '../io/run-limited.ts';

/** One date of a layer, whole (raster-reader.ts); named here too, as the engine's callers know it. */
export type { LayerGrid } from './raster-reader.ts';

/** Options of {@link createRasterEngine}. */
export interface RasterEngineOptions {
  catalog: Catalog;
  /** The dataset the catalog belongs to: it resolves, confines and opens every file the catalog lists. */
  dataset: DatasetLocation;
  /** Block cache per file (block size, bytes kept). */
  cache?: BlockCacheOptions;
  /**
   * Most tile reads in flight at once (default 32). The platform queues what its connections cannot
   * carry (six per host over HTTP/1.1); a host on HTTP/2 takes them all at once. At 6, a point over
   * 20 years (20 chunk objects) went out in four waves even where the host had room for all.
   */
  concurrency?: number;
  /** Most bytes one query or map preview may decode from a published store's chunks (default 256 MiB, read-cost.ts). */
  maxReadBytes?: number;
  /**
   * How a layer referenced at an absolute URL is read (src/dataset/foreign.ts); default: none is
   * read, each such query fails with `dataset_unavailable` naming the URL.
   */
  foreign?: ForeignOpener;
}

/**
 * Most pixels one map preview may hold: 2²² (4,194,304; 16 MiB of values). The own zarr layout's
 * previews are at most 1,024² by construction; a `map` layer of the real-size grid (1,800 × 1,150) fits.
 */
export const MAX_PREVIEW_PIXELS = 2 ** 22;

/** The raster half of the query engine. */
export interface RasterEngine {
  /** Runs a validated point or polygon query. Throws ClimateQueryError. */
  query(q: RasterQuery, signal?: AbortSignal): Promise<RasterResponse>;
  /** Every pixel of one date of a layer, in its unit (for a map preview). Throws ClimateQueryError. */
  grid(request: LayerGridRequest, signal?: AbortSignal): Promise<LayerGrid>;
  /** Closes every opened file (file handles in Node). */
  close(): Promise<void>;
}

/** Which layer and date {@link RasterEngine.grid} reads. */
export interface LayerGridRequest {
  dataType: string;
  subDataType: string;
  /** The layer's extent; default the first layer of that type and variant. */
  extent?: string;
  /** A period key of the layer (`2024-01-01`, `--06`), or '' for an undated layer. */
  period: string;
}

/** Creates a raster engine over `catalog`'s layers. */
export function createRasterEngine(options: RasterEngineOptions): RasterEngine {
  // A referenced layer's source may be a URL outside the dataset: read as the host allows, or not at all.
  const dataset = withForeign(
    options.dataset,
    options.foreign ?? noForeign('this engine reads no source outside its dataset.'),
  );
  // Layers of a built dataset are DEFLATE: its decoder loads while the first file's header is read.
  warmDecoder(DEFLATE);
  // What the catalog says of each file: a byte source checks every answer against it.
  const listed = new Map(options.catalog.files.map((f) => [f.path, f]));
  const opened = new Map<string, Promise<RasterFile>>();
  // Opens are shared by all queries, so no query's signal cancels them; closing the engine does.
  const lifetime = new AbortController();
  const concurrency = Math.max(1, options.concurrency ?? 32);
  // Chunks of every zarr store, read whole by key (no header, no index).
  const objects = new ObjectCache(dataset, options.cache?.maxBytes, lifetime.signal, options.cache?.budget);
  // Previews being built hold at most half the memory budget at once; the others wait their turn.
  const previews = new ByteGate((options.cache?.budget?.maxBytes ?? DEFAULT_MEMORY_BYTES) / 2);
  const building = new Map<string, { work: Promise<LayerGrid>; controller: AbortController; callers: number }>();

  /**
   * Opens (once, shared by all queries) file `index` of `layer` and checks it
   * against the catalog. Callers wait with their own signal; the open itself
   * is not cancelled by one of them.
   */
  function file(layer: RasterLayerEntry, index: number, signal?: AbortSignal): Promise<RasterFile> {
    const url = dataset.resolve(layer.files[index]!.path);
    let p = opened.get(url);
    if (!p) {
      const opening = readerOf(layer).open(ctx, layer, index);
      opened.set(url, opening);
      // A failed open (network, abort) must not stick: forget it so the next query retries.
      opening.catch(() => opened.delete(url));
      p = opening;
    }
    return abortable(p, signal);
  }
  const ctx: ReaderContext = {
    dataset,
    listed,
    cache: options.cache,
    objects,
    maxReadBytes: options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES,
    lifetime: lifetime.signal,
    concurrency,
    file,
  };

  async function query(q: RasterQuery, signal?: AbortSignal): Promise<RasterResponse> {
    throwIfAborted(signal);
    const layer = findLayer(options.catalog, q);
    refuseSwapped(q.geometries, [layer.bbox], `the ${layerLabel(layer)} layer`);
    const plan = planRead(layer, q);
    const grid = gridOf(layer);

    // Which pixels each geometry needs: one pixel for a point, covered pixels for a polygon.
    const needs: CoveredPixel[][] = q.geometries.map((g, index) => {
      if (g.kind === 'point') {
        const px = pixelOf(grid, gridLongitude(grid, g.position[0]), g.position[1]);
        return px ? [{ ...px, fraction: 1 }] : [];
      }
      // Bounded by the pixels the field covers, whatever pixel size the catalog claims.
      const polygons = ringsOnGrid(grid, g.polygons);
      const w = coverageWindow(polygons, grid);
      const cells = w ? (w.c1 - w.c0) * (w.r1 - w.r0) : 0;
      if (cells > MAX_POLYGON_CELLS) {
        throw fieldError(
          'limit_exceeded',
          `/wkts/${index}`,
          `Item ${index} of wkts spans ${cells.toLocaleString('en')} pixels of ${layer.dataType}${layer.subDataType === '-' ? '' : `/${layer.subDataType}`}, more than the ${MAX_POLYGON_CELLS.toLocaleString('en')} one polygon may; draw a smaller field, or ask a coarser layer.`,
          { of: 'pixels', max: MAX_POLYGON_CELLS, got: cells, index },
        );
      }
      return polygonCoverage(polygons, grid);
    });

    const tiles = await readTiles(layer, plan, needs, signal);
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
    throwIfAborted(signal);
    return out;
  }

  /** Reads every tile the needed pixels fall in, for every file of the plan, once each, concurrently. */
  async function readTiles(
    layer: RasterLayerEntry,
    plan: ReadPlan,
    needs: CoveredPixel[][],
    signal?: AbortSignal,
  ): Promise<Map<number, FileTiles>> {
    const out = new Map<number, FileTiles>();
    if (!needs.some((n) => n.length > 0)) return out;
    const jobs: Array<() => Promise<void>> = [];
    // Open every file of the plan at once (headers in parallel), then queue their tiles.
    const files = await Promise.all(plan.files.map((fb) => file(layer, fb.file, signal)));
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
    // The whole query's reads are planned before the first: a chunking that does not suit it is refused unread.
    checkReadCost(cost, ctx.maxReadBytes, `This query of ${layerLabel(layer)}`);
    await runLimited(jobs, concurrency);
    return out;
  }

  /**
   * One band of a layer, whole, for the map view. A `zarr` layer reads its preview of that date (one
   * object) and the date's range on the full grid; a `map` layer reads its file's overview of the
   * preview's size where the grid is larger (≈ 1.3 MB for a monthly year of the 1,800 × 1,150 px
   * real-size grid), else every tile of its band (≈ 0.3 MB on the demo grid).
   */
  async function grid(request: LayerGridRequest, signal?: AbortSignal): Promise<LayerGrid> {
    const { layer, fileIndex, band, pixels } = previewOf(request);
    // A preview holds its whole grid of values while it is built: bounded by the pixels a catalog may
    // claim for one, and by the bytes all previews hold at once, which the caches make room for.
    if (pixels > MAX_PREVIEW_PIXELS) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `The map preview of ${layer.dataType}${layer.subDataType === '-' ? '' : `/${layer.subDataType}`} would hold ${pixels.toLocaleString('en')} pixels, more than the ${MAX_PREVIEW_PIXELS.toLocaleString('en')} one preview may; its points and fields still answer.`,
      );
    }
    const bytes = pixels * Float32Array.BYTES_PER_ELEMENT;
    // Callers asking for the same preview while it is built share it (its values are theirs to read,
    // not to change): a thousand map views of one date build it once.
    // It is built until every caller has gone (each aborts on its own query budget).
    const key = `${options.catalog.rasters.indexOf(layer)}/${fileIndex}/${band}`;
    let b = building.get(key);
    if (!b) {
      const controller = new AbortController();
      const stop = onAbort(lifetime.signal, () => controller.abort(lifetime.signal.reason));
      const work = previews.run(
        bytes,
        async () => {
          options.cache?.budget?.charge(bytes);
          try {
            return await previewGrid(layer, fileIndex, band, controller.signal);
          } finally {
            options.cache?.budget?.release(bytes);
          }
        },
        controller.signal,
      );
      const entry = { work, controller, callers: 0 };
      const done = () => {
        stop();
        if (building.get(key) === entry) building.delete(key);
      };
      work.then(done, done);
      building.set(key, entry);
      b = entry;
    }
    b.callers++;
    try {
      return await abortable(b.work, signal);
    } finally {
      if (--b.callers === 0) {
        b.controller.abort(new ClimateQueryError('aborted', 'Every caller of this preview has gone.'));
        if (building.get(key) === b) building.delete(key);
      }
    }
  }

  /** The layer, file, band and preview size `request` asks for; throws naming what the layer lacks. */
  function previewOf(request: LayerGridRequest) {
    const sameKind = options.catalog.rasters.find(
      (l) => l.dataType === request.dataType && l.subDataType === request.subDataType,
    );
    const layer = findLayer(options.catalog, { ...request, extent: request.extent ?? sameKind?.extent ?? '' });
    const fileIndex = layer.files.findIndex((f) => f.periods.includes(request.period));
    if (fileIndex < 0) {
      throw new ClimateQueryError(
        'invalid_date_range',
        `The ${layer.dataType} ${layer.subDataType} layer has no ${request.period ? `${request.period} band` : 'undated band'}.`,
        { field: 'startDate' },
      );
    }
    const band = layer.files[fileIndex]!.periods.indexOf(request.period);
    return { layer, fileIndex, band, pixels: readerOf(layer).previewPixels(layer) };
  }

  function previewGrid(layer: RasterLayerEntry, fileIndex: number, band: number, signal?: AbortSignal) {
    return readerOf(layer).preview(ctx, layer, fileIndex, band, signal);
  }

  return {
    query,
    grid,
    async close() {
      lifetime.abort();
      objects.clear();
      const files = [...opened.values()];
      opened.clear();
      await Promise.all(files.map((p) => p.then((f) => f.close()).catch(() => undefined)));
    },
  };
}

/** The decoded tiles of one file, keyed by {@link tileKey}. */
interface FileTiles {
  file: RasterFile;
  tiles: Map<string, TileData>;
}

function layerLabel(layer: RasterLayerEntry): string {
  return `${layer.dataType}${layer.subDataType === '-' ? '' : `/${layer.subDataType}`}`;
}

function tileKey(tx: number, ty: number): string {
  return `${tx}/${ty}`;
}

/** The pixel containing (lon, lat), or null outside the grid (gdallocationinfo's rule). */
export function pixelOf(grid: GridSpec, lon: number, lat: number): { col: number; row: number } | null {
  const col = Math.floor((lon - grid.west) / grid.resX);
  const row = Math.floor((grid.north - lat) / grid.resY);
  if (col < 0 || row < 0 || col >= grid.width || row >= grid.height) return null;
  return { col, row };
}
