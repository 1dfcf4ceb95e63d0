/**
 * Values that publishers write for "no data" without saying so in the file: CHIRPS's GeoTIFFs
 * carry no nodata tag and write −9999 (docs/layers.md, "What the build refuses"), NetCDF's default fill
 * is 9.96921e36, CMIP's 1e20, and Int16 grids use −32768. A build that met one of them as the
 * smallest or largest value of an input that states no nodata would store it as rain or
 * temperature (and choose a storage step coarse enough to hold it): it is refused instead, and
 * the user says what it is (`--nodata=-9999`, or `--nodata none` for a value).
 */

/** The markers, exactly as the inputs hold them (Float32 where they are floats). */
export const MISSING_MARKERS: readonly number[] = [
  -9999,
  -999,
  -99999,
  -32768,
  -3.4028234663852886e38,
  3.4028234663852886e38,
  Math.fround(9.969209968386869e36),
  9.969209968386869e36,
  Math.fround(1e20),
  1e20,
];

/** The marker at either end of a range of values (`lo`, `hi`), or null. */
export function markerAtEnds(lo: number, hi: number): number | null {
  for (const v of [lo, hi]) if (MISSING_MARKERS.includes(v)) return v;
  return null;
}
