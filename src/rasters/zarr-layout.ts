/**
 * The `zarr` layout of a raster layer, shared by the build (which writes it)
 * and the reader: one Zarr v2 store per file group (a daily layer's year),
 * which GDAL, QGIS and xarray open as a georeferenced grid with its dates
 * (docs/layers.md, "The zarr layout"; docs/decisions/0001-daily-layers-as-zarr.md).
 *
 * - `<variable>`: Int16 (time, lat, lon), chunks of every date of the store ×
 *   8 × 8 px, so a point's year is one object of a few KiB and a point's
 *   decade one object per year, read in one round: the chunk's key is
 *   computed from the pixel, nothing (no tile index) is read first.
 * - `preview/<variable>`: the same dates on a grid reduced by a power of
 *   two (the mean of each block's valid pixels), one chunk per date, so the
 *   map view of one date reads one object; `preview/range`: each date's
 *   smallest and largest stored value on the full grid, for the legend.
 * - Codec of both: the numcodecs `delta` filter (Int16, wrapping), then
 *   `zlib`. Measured on the real-size bench layer: 0.51 bytes per value,
 *   against 0.70 without the filter and 0.72 with a byte shuffle.
 */

/** Chunk edge of the data array, pixels (the measured choice: docs/decisions/0001-daily-layers-as-zarr.md). */
export const ZARR_CHUNK = 8;

/** zlib level the build writes with: level 6 was 0.6 % smaller and four times slower. */
export const ZARR_ZLIB_LEVEL = 4;

/** The longest edge of a preview grid, pixels: the map view never shows more. */
export const PREVIEW_MAX_EDGE = 1024;

export type { ZarrArrays } from '../dataset/catalog.ts';

/** The reduction factor of a grid's preview: the smallest power of two that brings both edges within {@link PREVIEW_MAX_EDGE}. */
export function previewFactor(width: number, height: number): number {
  let f = 1;
  while (Math.ceil(width / f) > PREVIEW_MAX_EDGE || Math.ceil(height / f) > PREVIEW_MAX_EDGE) f *= 2;
  return f;
}

/** Size of the preview grid: every block of `factor` × `factor` pixels, edge blocks partial. */
export function previewSize(width: number, height: number, factor: number): { width: number; height: number } {
  return { width: Math.ceil(width / factor), height: Math.ceil(height / factor) };
}

/** Key of data chunk (`tx`, `ty`) in a store (Zarr v2, "." separator; time is one chunk). */
export function dataChunkKey(variable: string, tx: number, ty: number): string {
  return `${variable}/0.${ty}.${tx}`;
}

/** Key of the preview chunk of date index `t` (one chunk per date). */
export function previewChunkKey(variable: string, t: number): string {
  return `preview/${variable}/${t}.0.0`;
}

/** Key of the per-date range array's only chunk. */
export const RANGE_CHUNK_KEY = 'preview/range/0.0';

/** Uncompressed bytes of a data chunk of a store holding `dates` dates. */
export function dataChunkBytes(dates: number, chunk: number): number {
  return dates * chunk * chunk * 2;
}

/**
 * The most bytes a zlib stream of `raw` bytes can take (stored blocks: 5
 * bytes per 16 KiB block, the 2-byte header and 4-byte checksum), so a read
 * asks for no more and a longer object is refused as damaged.
 */
export function zlibBound(raw: number): number {
  return raw + 5 * Math.ceil(raw / 16_384) + 6 + 64;
}

/** The numcodecs `delta` filter on Int16, in place: each value minus the one before it, wrapping. */
export function deltaEncode(values: Int16Array): void {
  for (let i = values.length - 1; i > 0; i--) values[i] = values[i]! - values[i - 1]!;
}

/** Undoes {@link deltaEncode} in place (a running sum, wrapping to Int16). */
export function deltaDecode(values: Int16Array): void {
  for (let i = 1; i < values.length; i++) values[i] = values[i]! + values[i - 1]!;
}

/** The data array's name for a layer: its name and sub-type, with characters xarray and GDAL dislike as `_`. */
export function variableName(dataType: string, subDataType: string): string {
  const raw = subDataType === '-' ? dataType : `${dataType}_${subDataType}`;
  const name = raw.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z]/.test(name) ? name.slice(0, 64) : `v_${name}`.slice(0, 64);
}
