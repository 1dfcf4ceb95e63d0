/**
 * A small raster dataset built by the real raster build from GeoTIFF
 * inputs written for the purpose, in a temp folder. Exercises every input
 * form the build accepts: a 365-band stack with dated band descriptions,
 * a daily layer split over two years, single-date files dated by a
 * stated file-name pattern, calendar months as "1".."12", explicit periods, an undated layer
 * and a projected (UTM) input. Values vary from pixel to pixel and have
 * nodata in shapes (a disk, a strip along the west edge, scattered pixels,
 * one whole tile), so statistics and nodata handling are exercised.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { catalogJson } from './catalog-json.ts';

/** The fixture grid (EPSG:4326). 100 × 70 px with 32 px tiles: partial tiles on the east and south. */
export const FIXTURE_GRID = { west: 18, north: -33, res: 0.02, width: 100, height: 70, tile: 32 };
export const INPUT_NODATA = -9999;

/** Deterministic pseudo-noise in [0, 1). */
export function hash(c: number, r: number, b: number): number {
  const x = Math.sin(c * 12.9898 + r * 78.233 + b * 37.719) * 43758.5453;
  return x - Math.floor(x);
}

/** Whether pixel (c, r) of the fixture grid is nodata in every layer built on it. */
export function isNodataPixel(c: number, r: number): boolean {
  if (c < 3) return true;
  if ((c - 40) ** 2 + (r - 30) ** 2 <= 64) return true;
  if (c >= 96 && r >= 64) return true; // the whole last tile (96..99 × 64..69): stored sparse
  return hash(c, r, 999) < 0.01;
}

/** The input value of band `b` at (c, r) for a "daily temperature" stack of day-of-year offset `day0`. */
export function dailyValue(c: number, r: number, b: number, day0 = 0): number {
  return 15 + 8 * Math.cos((2 * Math.PI * (b + day0 - 24)) / 365) + 0.05 * c - 0.03 * r + 4 * (hash(c, r, b) - 0.5);
}

/** Smooth function of lon/lat used for the projected input, so reprojection can be checked. */
export function windAt(lon: number, lat: number): number {
  return 5 + 2 * (lon - 18) - 1.5 * (lat + 33);
}

function fill(valueAt: (c: number, r: number) => number, width = FIXTURE_GRID.width, nodata = true) {
  return (out: Float32Array) => {
    for (let r = 0; r < out.length / width; r++) {
      for (let c = 0; c < width; c++) out[r * width + c] = nodata && isNodataPixel(c, r) ? INPUT_NODATA : valueAt(c, r);
    }
  };
}

const days = (startUtc: number, n: number) =>
  Array.from({ length: n }, (_, i) => new Date(startUtc + i * 86_400_000).toISOString().slice(0, 10));

/** A built fixture. */
export interface RasterFixture {
  root: string;
  inputs: string;
  dataset: string;
  catalog: Catalog;
  /** Seconds the raster builds took (without writing inputs). */
  buildSeconds: number;
  cleanup(): Promise<void>;
}

/** Writes the inputs and builds the dataset into a fresh temp folder (~3 s). */
export async function buildRasterFixture(): Promise<RasterFixture> {
  const root = await mkdtemp(join(tmpdir(), 'climate-query-rasters-'));
  const inputs = join(root, 'inputs');
  const dataset = join(root, 'dataset');
  await mkdir(inputs, { recursive: true });
  const g = FIXTURE_GRID;
  const base = {
    width: g.width,
    height: g.height,
    geoTransform: [g.west, g.res, 0, g.north, 0, -g.res] as [number, number, number, number, number, number],
    nodata: INPUT_NODATA,
  };

  // temp/mean: one 365-band stack of 2023, dated by band descriptions.
  await writeInputGeoTiff(join(inputs, 'tmean-2023.tif'), {
    ...base,
    bands: 365,
    descriptions: days(Date.UTC(2023, 0, 1), 365),
    fill: (b, out) => fill((c, r) => dailyValue(c, r, b))(out),
  });
  // temp/max: two stacks that straddle the new year, so the layer has a file per year.
  await writeInputGeoTiff(join(inputs, 'tmax-a.tif'), {
    ...base,
    bands: 12,
    descriptions: days(Date.UTC(2023, 11, 20), 12),
    fill: (b, out) => fill((c, r) => dailyValue(c, r, b, 353) + 8)(out),
  });
  await writeInputGeoTiff(join(inputs, 'tmax-b.tif'), {
    ...base,
    bands: 10,
    descriptions: days(Date.UTC(2024, 0, 1), 10),
    fill: (b, out) => fill((c, r) => dailyValue(c, r, b + 12, 353) + 8)(out),
  });
  // gdd/apples: one single-band file per season, dated by file name only.
  const gddFiles: string[] = [];
  for (let y = 2019; y <= 2024; y++) {
    const f = join(inputs, `gdd_apples_${y}.tif`);
    await writeInputGeoTiff(f, {
      ...base,
      bands: 1,
      fill: (_b, out) => fill((c, r) => 1500 + 10 * c + 5 * r + 100 * (y - 2019) + 50 * hash(c, r, y))(out),
    });
    gddFiles.push(f);
  }
  // rain: calendar months written as "1".."12".
  await writeInputGeoTiff(join(inputs, 'rain.tif'), {
    ...base,
    bands: 12,
    descriptions: Array.from({ length: 12 }, (_, m) => String(m + 1)),
    fill: (b, out) => fill((c, r) => 10 * (b + 1) + 0.3 * c + 20 * hash(c, r, b))(out),
  });
  // chill/dpcu: no descriptions, periods passed explicitly.
  await writeInputGeoTiff(join(inputs, 'chill.tif'), {
    ...base,
    bands: 3,
    fill: (b, out) => fill((c, r) => 800 - 300 * b + 2 * c - 3 * r)(out),
  });
  // windspeed/50: projected (UTM 34S) input; the build must reproject it.
  const utm = '+proj=utm +zone=34 +south +datum=WGS84 +units=m +no_defs';
  const [x0, y0] = proj4('EPSG:4326', utm, [g.west, g.north]);
  const [x1, y1] = proj4('EPSG:4326', utm, [g.west + g.width * g.res, g.north - g.height * g.res]);
  const cell = 1000;
  const uw = Math.ceil((x1! - x0!) / cell);
  const uh = Math.ceil((y0! - y1!) / cell);
  await writeInputGeoTiff(join(inputs, 'wind-utm.tif'), {
    width: uw,
    height: uh,
    geoTransform: [x0!, cell, 0, y0!, 0, -cell],
    srs: 'EPSG:32734',
    bands: 1,
    fill: (_b, out) => {
      for (let r = 0; r < uh; r++) {
        for (let c = 0; c < uw; c++) {
          const [lon, lat] = proj4(utm, 'EPSG:4326', [x0! + (c + 0.5) * cell, y0! - (r + 0.5) * cell]);
          out[r * uw + c] = windAt(lon!, lat!);
        }
      }
    },
  });
  // windspeed/20: an undated EPSG:4326 layer.
  await writeInputGeoTiff(join(inputs, 'wind-20.tif'), {
    ...base,
    bands: 1,
    fill: (_b, out) => fill((c, r) => 3 + 0.01 * c + 0.02 * r + hash(c, r, 7))(out),
  });

  const started = Date.now();
  await buildRasterLayer({
    dir: dataset,
    datasetName: 'fixture',
    dataType: 'temp',
    subDataType: 'mean',
    inputs: [join(inputs, 'tmean-2023.tif')],
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'temp',
    subDataType: 'max',
    inputs: [join(inputs, 'tmax-b.tif'), join(inputs, 'tmax-a.tif')],
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'gdd',
    subDataType: 'apples',
    inputs: gddFiles,
    datePattern: 'gdd_apples_{yyyy}.tif',
  });
  await buildRasterLayer({ dir: dataset, dataType: 'rain', inputs: [join(inputs, 'rain.tif')] });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'chill',
    subDataType: 'dpcu',
    inputs: [{ path: join(inputs, 'chill.tif'), periods: ['2022', '2023', '2024'] }],
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'windspeed',
    subDataType: '20',
    inputs: [join(inputs, 'wind-20.tif')],
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'windspeed',
    subDataType: '50',
    inputs: [join(inputs, 'wind-utm.tif')],
  });
  const buildSeconds = (Date.now() - started) / 1000;

  const catalog = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
  return { root, inputs, dataset, catalog, buildSeconds, cleanup: () => rm(root, { recursive: true, force: true }) };
}
