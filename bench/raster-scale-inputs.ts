/**
 * Input files of the real-size raster bench: one multi-band GeoTIFF per year
 * of {@link RealSizeTemperature} (365 or 366 bands, band descriptions the
 * dates, Float32, NaN at sea, DEFLATE), as an operator receives them, in
 * both interleaves GDAL writes: `band` (each band's strips together) and
 * `pixel` (every band of a pixel together: what `gdal_translate` writes for
 * a multi-band GeoTIFF by default). Cached under the bench cache folder by
 * grid, seed and years; written atomically (a temporary name, then rename).
 * Also a year's monthly means, for the `map` layout at the real size.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeInputGeoTiff } from '../src/builder/raster-build-input.ts';
import { daysOf, REAL_SIZE_GRID, RealSizeTemperature, realSizeFields } from './raster-scale-model.ts';

/** How the bands of an input file are interleaved. */
export type InputInterleave = 'band' | 'pixel';

/** Where the inputs of `years` are, written first when missing. Years must be consecutive (one weather run). */
export async function ensureRealSizeInputs(
  cacheDir: string,
  years: number[],
  interleave: InputInterleave,
  log: (line: string) => void = () => undefined,
): Promise<string[]> {
  const dir = join(cacheDir, 'real-size-inputs');
  await mkdir(dir, { recursive: true });
  const paths = years.map((y) => join(dir, `tmean_${y}_${interleave}.tif`));
  if (paths.every((p) => existsSync(p))) return paths;
  const fields = await realSizeFields();
  // Every year's weather continues the year before, from the first year of the bench.
  const model = new RealSizeTemperature(fields);
  const grid = REAL_SIZE_GRID;
  for (const [i, year] of years.entries()) {
    const days = daysOf(year);
    const path = paths[i]!;
    if (existsSync(path)) {
      // Keep the weather in step with a full run even when this year is cached.
      const scratch = new Float32Array(grid.width * grid.height);
      for (const d of days) model.day(d, scratch);
      continue;
    }
    const started = Date.now();
    const partial = `${path.slice(0, -4)}.partial.tif`;
    await rm(partial, { force: true });
    await writeInputGeoTiff(partial, {
      width: grid.width,
      height: grid.height,
      geoTransform: [grid.west, grid.res, 0, grid.north, 0, -grid.res],
      descriptions: days.map((d) => d.toISOString().slice(0, 10)),
      bands: days.length,
      fill: (b, out) => {
        model.day(days[b]!, out);
        if (b % 60 === 59) log(`  inputs ${year} (${interleave}): day ${b + 1} of ${days.length}`);
      },
      creationOptions: [
        '-co',
        'COMPRESS=DEFLATE',
        '-co',
        `INTERLEAVE=${interleave === 'band' ? 'BAND' : 'PIXEL'}`,
        '-co',
        'BIGTIFF=YES',
      ],
    });
    await rename(partial, path);
    log(`  inputs ${year} (${interleave}) written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return paths;
}

/**
 * The monthly input of the real-size bench: the 12 monthly means of `year` of the same model (°C,
 * rounded to 0.1, NaN at sea) as one 12-band Float32 GeoTIFF, band descriptions the months' first
 * days. Cached like the daily inputs.
 */
export async function ensureRealSizeMonthly(
  cacheDir: string,
  year: number,
  log: (line: string) => void = () => undefined,
): Promise<string> {
  const dir = join(cacheDir, 'real-size-inputs');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `tmean_${year}_monthly.tif`);
  if (existsSync(path)) return path;
  const started = Date.now();
  const grid = REAL_SIZE_GRID;
  const n = grid.width * grid.height;
  const model = new RealSizeTemperature(await realSizeFields());
  const sums = Array.from({ length: 12 }, () => new Float64Array(n));
  const days = Array.from({ length: 12 }, () => 0);
  const scratch = new Float32Array(n);
  for (const d of daysOf(year)) {
    model.day(d, scratch);
    const m = d.getUTCMonth();
    const sum = sums[m]!;
    for (let i = 0; i < n; i++) sum[i]! += scratch[i]!;
    days[m]!++;
  }
  const partial = `${path.slice(0, -4)}.partial.tif`;
  await rm(partial, { force: true });
  await writeInputGeoTiff(partial, {
    width: grid.width,
    height: grid.height,
    geoTransform: [grid.west, grid.res, 0, grid.north, 0, -grid.res],
    descriptions: days.map((_, m) => `${year}-${String(m + 1).padStart(2, '0')}-01`),
    bands: 12,
    fill: (b, out) => {
      const sum = sums[b]!;
      for (let i = 0; i < n; i++) out[i] = Math.round((sum[i]! / days[b]!) * 10) / 10;
    },
    creationOptions: ['-co', 'COMPRESS=DEFLATE', '-co', 'BIGTIFF=YES'],
  });
  await rename(partial, path);
  log(`  monthly input ${year} written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return path;
}
