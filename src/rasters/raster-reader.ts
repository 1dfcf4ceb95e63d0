/**
 * What every layout's reader gives the engine (layouts/registry.ts): a layer's file or store
 * opened as a grid of tiles, each tile decoded with the dates asked for, and one date of the layer
 * whole for the map. The engine plans pixels, tiles and dates against these alone, whatever the
 * bytes look like. Free of node:* imports: it is bundled for the browser.
 */
import type { TypedArray } from 'geotiff';
import type { CatalogFile, RasterLayerEntry } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import type { BlockCacheOptions } from './cached-source.ts';
import type { ObjectCache } from './zarr-file.ts';

/** A decoded tile window: `data[(row * width + col) * samples + s]`, rows and cols relative to `x0`, `y0`. */
export interface TileData {
  x0: number;
  y0: number;
  width: number;
  height: number;
  /** How many bands are interleaved per pixel (the ones asked for, in that order). */
  samples: number;
  data: TypedArray;
}

/** An opened raster file, seen as a grid of tiles whatever its layout. */
export interface RasterFile {
  readonly url: string;
  /** The grid, pixels. */
  readonly width: number;
  readonly height: number;
  /** A tile's pixels on the grid (a `zarr` store's chunk). */
  readonly tileWidth: number;
  readonly tileHeight: number;
  /**
   * Rows the tile grid starts above the raster (0 unless said): tile row `ty` holds rows
   * `ty·tileHeight − rowOffset` on. A store written south to north has its chunks counted from its
   * southern edge, so its north-up tiles match its chunks only when shifted by this much.
   */
  readonly rowOffset?: number;
  /** Dates (bands) the file holds. */
  readonly bands: number;
  /** Decodes tile (`tx`, `ty`) of the grid with the given 0-based bands interleaved in the given order. */
  readTile(tx: number, ty: number, bands: number[], signal?: AbortSignal): Promise<TileData>;
  /**
   * Decodes pixels [`x0`, `x1`) × [`y0`, `y1`) of one tile, where a file can copy out less than its
   * tile: a COG collection's point needs 32 × 32 px of each date's 512 × 512 tile, and copying the
   * whole tile out of geotiff.js cost as much as inflating it.
   */
  readWindow?(x0: number, y0: number, x1: number, y1: number, bands: number[], signal?: AbortSignal): Promise<TileData>;
  /**
   * What reading tile (`tx`, `ty`) with `bands` would decode, for files whose chunking a query may
   * not suit (read-cost.ts); absent where a tile's read is bounded by construction (own layouts).
   */
  readCost?(tx: number, ty: number, bands: number[]): { chunks: number; bytes: number };
  /** The block cache's read counters (diagnostics, tests). */
  readonly stats: { reads: number; bytes: number };
  /** The same grid at reduced resolutions (a COG's overviews), largest first; read as the file is. */
  readonly overviews?: readonly RasterFile[];
  /** Band `band`'s smallest and largest stored value over the full grid, where the file records them. */
  bandRange?(band: number): Promise<[number, number] | null>;
  close(): Promise<void>;
}

/** The tile row of `file` that holds raster row `row`. */
export function tileRowOf(file: Pick<RasterFile, 'tileHeight' | 'rowOffset'>, row: number): number {
  return Math.floor((row + (file.rowOffset ?? 0)) / file.tileHeight);
}

/** Every tile (tx, ty) of `file`'s grid. */
export function everyTile(file: RasterFile): Array<[number, number]> {
  const tiles: Array<[number, number]> = [];
  const rows = tileRowOf(file, file.height - 1) + 1;
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx * file.tileWidth < file.width; tx++) tiles.push([tx, ty]);
  }
  return tiles;
}

/** One date of a layer, whole: row-major values in the layer's unit, NaN where there is no data. */
export interface LayerGrid {
  width: number;
  height: number;
  values: Float32Array;
  /** [west, south, east, north] of the grid. */
  bbox: [number, number, number, number];
  /** Smallest and largest value (NaN when every pixel is empty). */
  min: number;
  max: number;
  unit: string;
}

/** What a layout's reader is given: the engine's dataset, caches and its shared opener. */
export interface ReaderContext {
  dataset: DatasetLocation;
  /** What the catalog says of each file, by path (size, hashes, header, tile digests). */
  listed: ReadonlyMap<string, CatalogFile>;
  /** Block cache options of files read through geotiff.js. */
  cache: BlockCacheOptions | undefined;
  /** Objects read whole by key, shared by every store of the engine. */
  objects: ObjectCache;
  /** Ends when the engine closes: opens and shared reads outlive the query that started them. */
  lifetime: AbortSignal;
  /** Most bytes one query or preview may decode from chunks that state a cost (read-cost.ts). */
  maxReadBytes: number;
  /** Most tile reads in flight at once. */
  concurrency: number;
  /** File `index` of `layer`, opened once and shared by every query (the engine's). */
  file(layer: RasterLayerEntry, index: number, signal?: AbortSignal): Promise<RasterFile>;
}

/**
 * One layout's reader: how a layer of that layout is opened, and its map preview. A layout is
 * added here by one entry in layouts/registry.ts (and its catalog description, src/dataset/catalog.ts).
 */
export interface LayoutReader {
  /** Opens file `index` of `layer` and checks it against the catalog. */
  open(ctx: ReaderContext, layer: RasterLayerEntry, index: number): Promise<RasterFile>;
  /** The pixels one date's preview holds: bounded before it is built. */
  previewPixels(layer: RasterLayerEntry): number;
  /** Band `band` of file `index`, whole, in the layer's unit, for the map. */
  preview(
    ctx: ReaderContext,
    layer: RasterLayerEntry,
    index: number,
    band: number,
    signal?: AbortSignal,
  ): Promise<LayerGrid>;
}
