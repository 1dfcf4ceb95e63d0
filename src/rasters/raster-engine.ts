/**
 * Answers /api/point/ and /api/polygon/ from the raster layers a catalog
 * lists, and a date's map preview. Runs in the browser and in Node (no
 * node:* imports here; Node callers pass a location that reads local files).
 *
 * A query goes through named stages: the layer and its files' bands
 * (layer-plan.ts), the pixels each geometry needs (pixel-needs.ts: a
 * point's pixel by gdallocationinfo's rule, a field's by exactextract's),
 * every tile they fall in read once with all the dates asked, all at once
 * (tile-reads.ts), then the values (answer-values.ts). This file holds what
 * the stages share for the engine's lifetime: files opened once (header,
 * tile index, byte blocks), the chunk cache, and previews being built
 * (preview-builds.ts).
 */
import { ClimateQueryError, throwIfAborted } from '../contract/errors.ts';
import { refuseSwapped } from '../contract/swapped-coordinates.ts';
import type { RasterQuery, RasterResponse } from '../contract/types.ts';
import type { Catalog } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { type ForeignOpener, noForeign, withForeign } from '../dataset/foreign.ts';
import { answerValues } from './answer-values.ts';
import type { BlockCacheOptions } from './cached-source.ts';
import { findLayer, layerTypeLabel, planRead } from './layer-plan.ts';
import { readerOf } from './layouts/registry.ts';
import { createReaderContext } from './reader-context.ts';
import { pixelNeeds } from './pixel-needs.ts';
import { PreviewBuilds } from './preview-builds.ts';
import { DEFLATE, warmDecoder } from './raster-file.ts';
import type { LayerGrid } from './raster-reader.ts';
import { readPlannedTiles } from './tile-reads.ts';

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
  // Files opened once and shared by every query, the chunk cache, the read bound (reader-context.ts).
  const { ctx, close } = createReaderContext({ ...options, dataset });
  const previews = new PreviewBuilds(ctx.lifetime, options.cache?.budget);

  /** Plan (layer, dates, pixels), read (every tile once, all at once), answer (pure). */
  async function query(q: RasterQuery, signal?: AbortSignal): Promise<RasterResponse> {
    throwIfAborted(signal);
    const layer = findLayer(options.catalog, q);
    refuseSwapped(q.geometries, [layer.bbox], `the ${layerTypeLabel(layer)} layer`);
    const plan = planRead(layer, q);
    const needs = pixelNeeds(layer, q.geometries);
    const tiles = await readPlannedTiles(ctx, layer, plan, needs, signal);
    const out = answerValues(q, layer, plan, needs, tiles);
    throwIfAborted(signal);
    return out;
  }

  /**
   * One band of a layer, whole, for the map view. A `zarr` layer reads its preview of that date (one
   * object) and the date's range on the full grid; a `map` layer reads its file's overview of the
   * preview's size where the grid is larger (≈ 1.4 MB for a monthly year of the 1,800 × 1,150 px
   * real-size grid), else every tile of its band (≈ 0.3 MB on the demo grid).
   */
  async function grid(request: LayerGridRequest, signal?: AbortSignal): Promise<LayerGrid> {
    const { layer, fileIndex, band } = previewOf(options.catalog, request);
    const reader = readerOf(layer);
    // A preview holds its whole grid of values while it is built: bounded by the pixels a catalog may
    // claim for one, and by the bytes all previews hold at once, which the caches make room for.
    const pixels = reader.previewPixels(layer);
    if (pixels > MAX_PREVIEW_PIXELS) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `The map preview of ${layerTypeLabel(layer)} would hold ${pixels.toLocaleString('en')} pixels, more than the ${MAX_PREVIEW_PIXELS.toLocaleString('en')} one preview may; its points and fields still answer.`,
      );
    }
    const key = `${options.catalog.rasters.indexOf(layer)}/${fileIndex}/${band}`;
    return previews.share(
      key,
      pixels * Float32Array.BYTES_PER_ELEMENT,
      (sig) => reader.preview(ctx, layer, fileIndex, band, sig),
      signal,
    );
  }

  return {
    query,
    grid,
    close,
  };
}

/** The layer, file and band `request` asks for; throws naming what the layer lacks. */
function previewOf(catalog: Catalog, request: LayerGridRequest) {
  const sameKind = catalog.rasters.find(
    (l) => l.dataType === request.dataType && l.subDataType === request.subDataType,
  );
  const layer = findLayer(catalog, { ...request, extent: request.extent ?? sameKind?.extent ?? '' });
  const fileIndex = layer.files.findIndex((f) => f.periods.includes(request.period));
  if (fileIndex < 0) {
    throw new ClimateQueryError(
      'invalid_date_range',
      `The ${layer.dataType} ${layer.subDataType} layer has no ${request.period ? `${request.period} band` : 'undated band'}.`,
      { field: 'startDate' },
    );
  }
  return { layer, fileIndex, band: layer.files[fileIndex]!.periods.indexOf(request.period) };
}
