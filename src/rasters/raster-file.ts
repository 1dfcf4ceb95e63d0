/**
 * One opened GeoTIFF of a raster layer. Opening reads the header, the first
 * IFD and the whole tile offset and byte-count arrays once; after that a
 * tile costs exactly one range read (through the block cache) and is
 * decoded by geotiff.js with every requested band in it. Both layouts
 * (raster-layout.ts) come out the same: a `map` tile is pixel-interleaved
 * already, a `series` tile (one block's pixels as columns, dates as rows)
 * is turned into that shape here, so the engine reads one kind of tile.
 */
import { GeoTIFF, getDecoder, type TypedArray } from 'geotiff';
import { ClimateQueryError } from '../contract/errors.ts';
import type { ByteSource } from '../io/byte-source.ts';
import { BlockCachedSource, type BlockCacheOptions } from './cached-source.ts';
import { asSourceError } from '../io/byte-source.ts';
import { sha256Hex } from '../io/digest.ts';
import { blockColumns, blockFirstColumn, type SeriesGeometry, seriesImageWidth } from './raster-layout.ts';

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
  /** A tile's pixels on the grid (a `series` file's block). */
  readonly tileWidth: number;
  readonly tileHeight: number;
  /** Dates (bands) the file holds. */
  readonly bands: number;
  /** Decodes tile (`tx`, `ty`) of the grid with the given 0-based bands interleaved in the given order. */
  readTile(tx: number, ty: number, bands: number[], signal?: AbortSignal): Promise<TileData>;
  /** The block cache's read counters (diagnostics, tests). */
  readonly stats: { reads: number; bytes: number };
  close(): Promise<void>;
}

/**
 * Opens `source` as a tiled GeoTIFF and preloads its tile index. With
 * `header` (from the catalog), the file's leading bytes are checked first:
 * the same blocks geotiff.js reads next, so the check costs no request.
 * With `series` (from the catalog), the file is read as a `series` layout
 * of that grid and block; without, as a `map`.
 */
export async function openRasterFile(
  source: ByteSource,
  cache: BlockCacheOptions = {},
  signal?: AbortSignal,
  header?: { bytes: number; sha256: string },
  series?: SeriesGeometry,
): Promise<RasterFile> {
  const cached = new BlockCachedSource(source, cache);
  const url = source.url;
  try {
    if (header) {
      const [bytes] = await cached.fetch([{ offset: 0, length: header.bytes }], signal);
      if ((await sha256Hex(new Uint8Array(bytes!))) !== header.sha256) {
        throw new ClimateQueryError(
          'dataset_changed',
          `${url} is not the file the catalog records: the SHA-256 of its first ${header.bytes} bytes (header and tile index) differs, so it is another version. If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole.`,
        );
      }
    }
    const tiff = await GeoTIFF.fromSource(cached as unknown as Parameters<typeof GeoTIFF.fromSource>[0], {}, signal);
    const image = await tiff.getImage(0);
    warmDecoder(Number(image.fileDirectory.getValue('Compression') ?? 1));
    if (!image.isTiled) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} is not tiled; rebuild the layer with \`climate-query build\` (tiled, pixel-interleaved GeoTIFF).`,
      );
    }
    // Load the whole tile index now, so no tile ever waits for its offset and size first.
    await Promise.all([image.fileDirectory.loadValue('TileOffsets'), image.fileDirectory.loadValue('TileByteCounts')]);
    if (series) checkSeriesFile(url, image, series);
    const width = series ? series.gridWidth : image.getWidth();
    const height = series ? series.gridHeight : image.getHeight();
    const tileWidth = series ? series.blockWidth : image.getTileWidth();
    const tileHeight = series ? series.blockHeight : image.getTileHeight();
    return {
      url,
      width,
      height,
      tileWidth,
      tileHeight,
      bands: series ? image.getHeight() : image.getSamplesPerPixel(),
      stats: cached.stats,
      async readTile(tx, ty, bands, sig) {
        const x0 = tx * tileWidth;
        const y0 = ty * tileHeight;
        const x1 = Math.min(x0 + tileWidth, width);
        const y1 = Math.min(y0 + tileHeight, height);
        const decode = async (): Promise<TypedArray> => {
          if (!series) {
            return (await image.readRasters({
              window: [x0, y0, x1, y1],
              samples: [...bands],
              interleave: true,
              signal: sig,
            })) as TypedArray;
          }
          // The block's columns, rows from the first to the last band asked (one tile: every date).
          const first = Math.min(...bands);
          const last = Math.max(...bands);
          const c0 = blockFirstColumn(series, tx, ty);
          const per = blockColumns(series);
          const raw = (await image.readRasters({
            window: [c0, first, c0 + per, last + 1],
            interleave: true,
            signal: sig,
          })) as TypedArray;
          return fromSeries(raw, per, series.blockWidth, x1 - x0, y1 - y0, bands, first);
        };
        const aborted = (err: unknown) =>
          err instanceof ClimateQueryError || sig?.aborted || (err as { name?: unknown })?.name === 'AbortError';
        let data: TypedArray;
        try {
          data = await decode();
        } catch (err) {
          if (aborted(err)) throw asSourceError(err, url, sig);
          // Bytes that would not decode may be a host's fault (a cut or shifted answer): they must
          // not stay cached, and a fresh read may heal. Once; a second failure is the file's own.
          cached.dropBlocks();
          try {
            data = await decode();
          } catch (again) {
            if (aborted(again)) throw asSourceError(again, url, sig);
            cached.dropBlocks();
            const detail = again instanceof Error ? again.message : String(again);
            throw new ClimateQueryError(
              'dataset_unavailable',
              `${url}: tile ${tx},${ty} could not be decoded (${detail}); the file is damaged, or the host sends other bytes than asked for.`,
              { cause: again },
            );
          }
        }
        return { x0, y0, width: x1 - x0, height: y1 - y0, samples: bands.length, data };
      },
      close: () => cached.close(),
    };
  } catch (err) {
    await cached.close().catch(() => undefined);
    if (err instanceof ClimateQueryError) throw err;
    if (signal?.aborted) throw asSourceError(err, url, signal);
    const detail = err instanceof Error ? err.message : String(err);
    throw new ClimateQueryError('dataset_unavailable', `${url} could not be opened as a GeoTIFF: ${detail}`, {
      cause: err,
    });
  }
}

/** Refuses a file whose shape is not the `series` layout the catalog records. */
function checkSeriesFile(
  url: string,
  image: { getWidth(): number; getSamplesPerPixel(): number; getTileWidth(): number },
  g: SeriesGeometry,
): void {
  const want = seriesImageWidth(g);
  if (image.getWidth() !== want || image.getSamplesPerPixel() !== 1 || image.getTileWidth() !== blockColumns(g)) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${url} is not the series layout catalog.json records (${want} columns in tiles of ${blockColumns(g)}, one band; the file has ${image.getWidth()} columns in tiles of ${image.getTileWidth()}, ${image.getSamplesPerPixel()} band(s)); rebuild the layer with \`climate-query build\`.`,
    );
  }
}

/**
 * A `series` window (rows = bands `first`…, columns = one block's pixels,
 * `per` of them, row-major inside a block `blockWidth` wide) as a `map`
 * tile: `width × height` grid pixels with `bands` interleaved in order.
 */
export function fromSeries(
  raw: TypedArray,
  per: number,
  blockWidth: number,
  width: number,
  height: number,
  bands: readonly number[],
  first: number,
): TypedArray {
  const samples = bands.length;
  const out = new (raw.constructor as new (n: number) => TypedArray)(width * height * samples);
  for (let s = 0; s < samples; s++) {
    const rowStart = (bands[s]! - first) * per;
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) out[(r * width + c) * samples + s] = raw[rowStart + r * blockWidth + c]!;
    }
  }
  return out;
}

/** TIFF compression code of DEFLATE, which `climate-query build` writes every layer with. */
export const DEFLATE = 8;

/**
 * Starts loading geotiff.js's decoder for a TIFF compression code. geotiff.js
 * imports it on a file's first read, and in a bundle that is two round trips
 * (the decoder's chunk, then the chunks it imports: pako for DEFLATE) before
 * the first tile is asked for; started early, they overlap the reads before.
 * The first read awaits the same import. An unknown code is left for that
 * read to report.
 */
export function warmDecoder(compression: number): void {
  getDecoder(compression, {} as Parameters<typeof getDecoder>[1]).catch(() => undefined);
}
