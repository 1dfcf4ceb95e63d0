/** Inputs for tests that build their own small layers: a grid, a year's dates, a dated GeoTIFF stack. */
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';

/** A north-up lon/lat grid: its north-west corner, pixel size (°) and size (px). */
export interface TestGrid {
  west: number;
  north: number;
  res: number;
  width: number;
  height: number;
}

/** Every `yyyy-mm-dd` of year `y`. */
export function daysOfYear(y: number): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Writes a GeoTIFF on `g`, one band per period (its description), pixel (c, r) of band b = `value(c, r, b)`. */
export function writeGridInput(
  path: string,
  g: TestGrid,
  periods: readonly string[],
  value: (c: number, r: number, b: number) => number,
): Promise<void> {
  return writeInputGeoTiff(path, {
    width: g.width,
    height: g.height,
    geoTransform: [g.west, g.res, 0, g.north, 0, -g.res],
    bands: periods.length,
    descriptions: [...periods],
    fill: (b, out) => {
      for (let r = 0; r < g.height; r++) for (let c = 0; c < g.width; c++) out[r * g.width + c] = value(c, r, b);
    },
  });
}
