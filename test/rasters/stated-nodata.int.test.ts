// A grid's missing value is stated, never guessed. CHIRPS's GeoTIFFs carry no nodata tag and
// write −9999 at sea: built as they are, −9999 mm was stored as rain and the storage step grew to
// 1 mm to hold it. Such an input is refused, naming the value and --nodata; with --nodata=-9999
// the sea answers null and the land the files' own values (at the step the land's values need),
// in both layouts and through a reprojection; --nodata none keeps −9999 as a value; a file that
// states another nodata of its own is refused.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer, type RasterBuildOptions } from '../../src/builder/raster-build.ts';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { pointSeries } from '../helpers/point-series.ts';

const GRID = { west: 17, north: -32, res: 0.05, width: 40, height: 30 };
const DAYS = Array.from({ length: 5 }, (_, i) => `2024-06-0${i + 1}`);
/** The sea: the south-west corner, −9999 as CHIRPS writes it. */
const isSea = (c: number, r: number) => c < 12 && r > 18;
/** Rain in mm at pixel (c, r) on day b, to two decimals. */
const rain = (c: number, r: number, b: number) =>
  Math.round((Math.abs(Math.sin((c + 3 * b) / 7) * 12) + r * 0.3) * 100) / 100;
const value = (c: number, r: number, b: number) => (isSea(c, r) ? -9999 : rain(c, r, b));

let dir: string;
const files: string[] = [];

/** One GeoTIFF band on GRID: its date (when named), its nodata tag (when given), each pixel's value. */
function writeGrid(
  path: string,
  pixel: (c: number, r: number) => number,
  o: { date?: string; nodata?: number } = {},
): Promise<void> {
  return writeInputGeoTiff(path, {
    width: GRID.width,
    height: GRID.height,
    geoTransform: [GRID.west, GRID.res, 0, GRID.north, 0, -GRID.res],
    bands: 1,
    ...(o.date ? { descriptions: [o.date] } : {}),
    ...(o.nodata !== undefined ? { nodata: o.nodata } : {}),
    fill: (_b, out) => {
      for (let r = 0; r < GRID.height; r++) for (let c = 0; c < GRID.width; c++) out[r * GRID.width + c] = pixel(c, r);
    },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-nodata-'));
  await mkdir(join(dir, 'in'));
  for (const [b, day] of DAYS.entries()) {
    const f = join(dir, 'in', `chirps-v2.0.${day.replaceAll('-', '.')}.tif`);
    await writeGrid(f, (c, r) => value(c, r, b));
    files.push(f);
  }
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const build = (out: string, extra: Partial<RasterBuildOptions> = {}) =>
  buildRasterLayer({
    dir: join(dir, out),
    dataType: 'chirps',
    unit: 'mm',
    timeScale: 'daily',
    extent: 'wc',
    datePattern: 'chirps-v2.0.{yyyy}.{mm}.{dd}.tif',
    inputs: files,
    ...extra,
  });
const at = (c: number, r: number) => ({
  lon: GRID.west + (c + 0.5) * GRID.res,
  lat: GRID.north - (r + 0.5) * GRID.res,
});
const series = (out: string, c: number, r: number) =>
  pointSeries(join(dir, out), {
    layer: 'chirps',
    extent: 'wc',
    ...at(c, r),
    startDate: DAYS[0]!,
    endDate: DAYS.at(-1)!,
  });

describe('an input that states no nodata value and writes −9999', () => {
  it('is refused, naming the value, the file and --nodata; nothing is written', async () => {
    await expect(build('refused')).rejects.toMatchObject({
      code: 'invalid_input',
      option: 'nodata',
      message: expect.stringMatching(
        /chirps-v2\.0\.2024\.06\.01\.tif band 1 .* holds -9999.*--nodata=-9999.*--nodata none/,
      ),
    });
    await expect(readFile(join(dir, 'refused', 'catalog.json'), 'utf8')).rejects.toThrow();
  });

  for (const layout of ['zarr', 'map'] as const) {
    it(`with --nodata=-9999 (${layout}): the sea is null, the land the files' values at a step they need`, async () => {
      const built = await build(`stated-${layout}`, { nodata: -9999, layout });
      // The land's values reach 21 mm: a step of 0.001 holds them (the −9999 had forced 1).
      expect(built.layer.scale).toBeLessThanOrEqual(0.001);
      for (const [c, r] of [
        [0, 29],
        [11, 19],
        [12, 19],
        [5, 5],
        [39, 0],
        [20, 15],
      ] as const) {
        const got = Object.values(await series(`stated-${layout}`, c, r));
        expect(got).toHaveLength(DAYS.length);
        got.forEach((v, b) => {
          if (isSea(c, r)) expect(v, `${c},${r} ${DAYS[b]}`).toBeNull();
          else expect(v, `${c},${r} ${DAYS[b]}`).toBeCloseTo(rain(c, r, b), 2);
        });
      }
    });
  }

  it('with --nodata none, −9999 is a value (the user said so)', async () => {
    await build('as-value', { nodata: 'none', layout: 'map', scale: 1 });
    const got = Object.values(await series('as-value', 2, 25));
    expect(got).toEqual(DAYS.map(() => -9999));
  });

  it('reprojected with --nodata, the sea is not blended into the coast', async () => {
    // The same days on a UTM grid without a tag: gdalwarp must leave −9999 out, not average it in.
    const UTM = '+proj=utm +zone=34 +south +datum=WGS84 +units=m +no_defs';
    const [x0, y0] = proj4('EPSG:4326', UTM, [17.0, -32.0]) as [number, number];
    const utm = join(dir, 'in', 'utm-2024-06-01.tif');
    await writeInputGeoTiff(utm, {
      width: 40,
      height: 34,
      srs: 'EPSG:32734',
      geoTransform: [x0, 5000, 0, y0, 0, -5000],
      bands: 1,
      descriptions: ['2024-06-01'],
      fill: (_b, out) => {
        for (let r = 0; r < 34; r++)
          for (let c = 0; c < 40; c++) out[r * 40 + c] = c < 12 && r > 20 ? -9999 : 5 + c * 0.1;
      },
    });
    await buildRasterLayer({
      dir: join(dir, 'utm'),
      dataType: 'chirps',
      unit: 'mm',
      timeScale: 'daily',
      extent: 'utm',
      inputs: [utm],
      nodata: -9999,
    });
    const engine = createNodeEngine(join(dir, 'utm'));
    try {
      const grid = await engine.layerGrid({
        dataType: 'chirps',
        subDataType: '-',
        extent: 'utm',
        period: '2024-06-01',
      });
      const values = Array.from(grid.values).filter((v) => Number.isFinite(v));
      expect(values.length).toBeGreaterThan(100);
      // Every value is one of the land's (5 … 8.9 mm), none a blend with −9999.
      expect(Math.min(...values)).toBeGreaterThanOrEqual(4.99);
      expect(Math.max(...values)).toBeLessThanOrEqual(8.91);
    } finally {
      await engine.close();
    }
  });

  // A float file holding both NaN (its top rows) and −9999 (the sea): tagged NaN with --nodata=-9999,
  // or tagged −9999 with no --nodata. Either way both are missing, in both layouts.
  for (const [name, tag, stated] of [
    ['a file tagged NaN that also writes −9999, with --nodata=-9999', Number.NaN, -9999],
    ['a float file tagged −9999 that also holds NaN, with no --nodata', -9999, undefined],
  ] as const) {
    for (const layout of ['zarr', 'map'] as const) {
      it(`${name} (${layout}): both are missing`, async () => {
        const key = `${Number.isNaN(tag) ? 'nan' : 'tagged'}-${layout}`;
        const input = join(dir, 'in', `${key}-2024-06-01.tif`);
        await writeGrid(input, (c, r) => (r < 3 ? Number.NaN : value(c, r, 0)), { date: '2024-06-01', nodata: tag });
        await buildRasterLayer({
          dir: join(dir, key),
          dataType: 'chirps',
          unit: 'mm',
          timeScale: 'daily',
          extent: 'wc',
          layout,
          inputs: [input],
          ...(stated !== undefined ? { nodata: stated } : {}),
        });
        const one = (c: number, r: number) =>
          pointSeries(join(dir, key), {
            layer: 'chirps',
            extent: 'wc',
            ...at(c, r),
            startDate: DAYS[0]!,
            endDate: DAYS[0]!,
          });
        expect(Object.values(await one(20, 1)), 'a NaN pixel').toEqual([null]);
        expect(Object.values(await one(2, 25)), 'a −9999 pixel').toEqual([null]);
        expect(Object.values(await one(20, 15))[0]).toBeCloseTo(rain(20, 15, 0), 2);
      });
    }
  }

  it('a file stating another nodata of its own is refused with --nodata, naming both', async () => {
    const own = join(dir, 'in', 'own-2024-06-01.tif');
    await writeGrid(own, () => 3, { date: '2024-06-01', nodata: -999 });
    await expect(
      buildRasterLayer({
        dir: join(dir, 'conflict'),
        dataType: 'chirps',
        unit: 'mm',
        timeScale: 'daily',
        extent: 'wc',
        inputs: [own],
        nodata: -9999,
      }),
    ).rejects.toMatchObject({
      code: 'invalid_option',
      option: 'nodata',
      message: expect.stringMatching(/own-2024-06-01\.tif states its own nodata value -999, and --nodata says -9999/),
    });
  });
});
