/**
 * The tile edge a raster layer is written with, chosen per layer from how
 * many bands (dates) its files stack. The files are pixel-interleaved, so a
 * point's answer costs one whole tile: every date of tile² pixels. A long
 * daily stack therefore wants small tiles, an undated layer larger ones.
 *
 * TIFF allows only tile edges that are multiples of 16 (libtiff refuses to
 * write others), so the choice is 16 or 32 px. Measured on the demo's
 * temp/mean (328 × 225 px, 366 daily bands, Int16, DEFLATE + predictor):
 * the file is 5.3 MB with 32 px tiles and 6.1 MB with 16 px (smaller tiles
 * compress a little worse); a point reads a quarter of the pixels, so 10
 * points × 365 days read 1.0 MiB with 32 px tiles and about a quarter of that
 * with 16 px (docs/performance.md has the bench's figure), and the header's
 * tile offset and size arrays grow from 88 to 315 entries (2.5 KiB).
 */
import { PREVIEW_MAX_EDGE } from '../rasters/zarr-layout.ts';

/** Largest uncompressed tile (all bands of tile² pixels) the chooser allows, bytes. */
export const MAX_BUILT_TILE_BYTES = 64 * 1024;

/** Tile edges the chooser picks from, smallest first (TIFF tile edges are multiples of 16). */
export const TILE_EDGES = [16, 32] as const;

/**
 * The largest edge of {@link TILE_EDGES} whose tile of `bands` samples per pixel, `bytesPerSample`
 * each, stays within {@link MAX_BUILT_TILE_BYTES}; the smallest edge when none does. 32 px (the edge
 * every layer had before) is the largest: an undated layer's point reads a single sample per
 * pixel, so a larger tile only adds bytes to each point's read.
 */
export function chooseTileSize(bands: number, bytesPerSample = 2): number {
  let edge: number = TILE_EDGES[0];
  for (const e of TILE_EDGES) if (e * e * bands * bytesPerSample <= MAX_BUILT_TILE_BYTES) edge = e;
  return edge;
}

/** Dates per file from which a layer is written in the `zarr` layout (src/rasters/zarr-layout.ts). */
export const ZARR_MIN_BANDS = 33;

/**
 * The layout a layer is written with, from the largest band count of its files: `zarr` for long
 * stacks (daily years), where a `map` tile's 16 × 16 px minimum makes a point read 256 pixels × every
 * date (67 KiB a point-year on the real-size grid, against 9.6 KiB for an 8 × 8 px chunk) and a map
 * preview read every tile of the year; `map` for undated and short stacks (monthly years, 12 calendar
 * months, annual seasons), ordinary GeoTIFFs whose 32 px tiles are already small.
 */
export function chooseLayout(bands: number): 'map' | 'zarr' {
  return bands >= ZARR_MIN_BANDS ? 'zarr' : 'map';
}

/**
 * GDAL's arguments for a `map` file: a Cloud-Optimized GeoTIFF (GDAL's COG driver: its header and
 * every directory first, then the tiles, smallest overview first; GDAL's COG validator passes it),
 * tiled at `tileSize`, DEFLATE with the horizontal predictor, BigTIFF only when needed, all-nodata
 * tiles left out, every band's exact min/max in its GDAL metadata (the map legend's full-resolution
 * range, docs/layers.md section 2.2). Overviews only where the grid exceeds the preview's longest
 * edge: there the map preview reads the overview of the preview's size instead of every tile. Their
 * pixels are the layer's own values (nearest: one of each block), which compress as the full grid
 * does; block means are values at a finer step than the layer's, and made a real-size monthly
 * year's 900 × 575 px overview 2.5 MB where nearest is 1.4 MB (docs/performance.md). The COG driver
 * warns that tiles under 128 px are unusual and writes them; a point's read wants them small (above).
 */
export function mapFileOptions(tileSize: number, width: number, height: number): string[] {
  const overviews = Math.max(width, height) > PREVIEW_MAX_EDGE;
  const co = (k: string, v: string | number) => ['-co', `${k}=${v}`];
  return [
    '-of',
    'COG',
    '-stats',
    ...co('BLOCKSIZE', tileSize),
    ...co('COMPRESS', 'DEFLATE'),
    ...co('PREDICTOR', 'YES'),
    ...co('BIGTIFF', 'IF_SAFER'),
    ...co('SPARSE_OK', 'TRUE'),
    ...(overviews
      ? [
          ...co('OVERVIEWS', 'AUTO'),
          ...co('OVERVIEW_RESAMPLING', 'NEAREST'),
          ...co('OVERVIEW_COMPRESS', 'DEFLATE'),
          ...co('OVERVIEW_PREDICTOR', 'YES'),
        ]
      : co('OVERVIEWS', 'NONE')),
  ];
}
