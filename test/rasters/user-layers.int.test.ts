/**
 * Layers a user brings: built with `climate-query build --layer
 * … --unit … --time-scale …` from GeoTIFFs written by GDAL, into a dataset
 * that already holds stations. Each layer answers /api/point/ and
 * /api/polygon/ through the whole engine (validation against the catalog
 * included) equal to GDAL's own read of the pixel and to the exact-coverage
 * oracle; the inputs' own values (or the function that generated them) are
 * checked too, so the build cannot agree with itself by accident. The
 * ambiguous and mismatched builds are refused with what to pass.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { DATA_SOURCES } from '../../src/builder/elevation.ts';
import type { Position } from '../../src/contract/wkt.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { COVERAGE_EPSILON } from '../../src/rasters/coverage.ts';
import { gdalPixel } from '../helpers/gdal-read.ts';
import { decodeWhole, oracleCoverage, oracleStat } from '../helpers/raster-oracle.ts';
import { hash } from '../helpers/raster-fixture.ts';
import { cli } from '../helpers/cli.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const ETOPO = join(DATA_SOURCES, 'za-elevation-etopo5.tif');
const UTM34S = '+proj=utm +zone=34 +south +datum=WGS84 +units=m +no_defs';

/** Daily minimum temperature of the projected input: smooth in lon/lat, so a bilinear warp keeps it. */
const tminAt = (lon: number, lat: number, day: number) => 8 + 3 * (lon - 19) - 2 * (lat + 33.7) + 0.5 * day;
/** The 4326 grids of the inputs. */
const SA = { west: 16.25, north: -22, res: 0.25, width: 67, height: 52 };
const WC = { west: 18, north: -32.5, res: 0.05, width: 50, height: 40 };
const precipAt = (c: number, r: number, year: number) =>
  200 + 30 * c * SA.res + 5 * r * SA.res + 50 * (year - 2016) + 40 * hash(c, r, year);
const et0At = (c: number, r: number, b: number) => 150 - 20 * b + 0.4 * c - 0.3 * r + 5 * hash(c, r, b);
const normalAt = (c: number, r: number, b: number) => 10 + 8 * Math.abs(b - 6) + 0.5 * c + 10 * hash(c, r, b + 20);
const gt = (g: typeof SA) => [g.west, g.res, 0, g.north, 0, -g.res] as [number, number, number, number, number, number];

let root: string;
let inputs: string;
let dataset: string;
let engine: ClimateEngine;
let catalog: Catalog;
const built: Record<string, { code: number; stdout: string; stderr: string }> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'climate-query-user-layers-'));
  inputs = join(root, 'inputs');
  dataset = join(root, 'dataset');
  await mkdir(inputs, { recursive: true });
  // A dataset that already has stations: building layers into it must keep them.
  await cp(inject('stationFixture').dataset, dataset, { recursive: true });

  // Daily Tmin in UTM 34S (EPSG:32734), one file per day, dates only in the file names.
  const [x0, y0] = proj4('EPSG:4326', UTM34S, [18.8, -33.5]) as [number, number];
  const [x1, y1] = proj4('EPSG:4326', UTM34S, [19.4, -34.0]) as [number, number];
  const cell = 1000;
  const [uw, uh] = [Math.ceil((x1 - x0) / cell), Math.ceil((y0 - y1) / cell)];
  for (const day of [1, 2, 3]) {
    await writeInputGeoTiff(join(inputs, `tmin_2024010${day}.tif`), {
      width: uw,
      height: uh,
      srs: 'EPSG:32734',
      geoTransform: [x0, cell, 0, y0, 0, -cell],
      bands: 1,
      fill: (_b, out) => {
        for (let r = 0; r < uh; r++) {
          for (let c = 0; c < uw; c++) {
            const [lon, lat] = proj4(UTM34S, 'EPSG:4326', [x0 + (c + 0.5) * cell, y0 - (r + 0.5) * cell]) as [
              number,
              number,
            ];
            out[r * uw + c] = tminAt(lon, lat, day);
          }
        }
      },
    });
  }
  // Annual precipitation over South Africa, one file per year, named as CFSv2 grids are.
  for (const year of [2016, 2017]) {
    await writeInputGeoTiff(join(inputs, `cfsv2_annual_precip_${year}_south_africa.tif`), {
      width: SA.width,
      height: SA.height,
      geoTransform: gt(SA),
      bands: 1,
      fill: (_b, out) => out.forEach((_, i) => (out[i] = precipAt(i % SA.width, Math.floor(i / SA.width), year))),
    });
  }
  // Monthly ET0: one 6-band file with no band descriptions. Long-term monthly rain normals: 12 bands.
  await writeInputGeoTiff(join(inputs, 'et0_2024_h1.tif'), {
    width: WC.width,
    height: WC.height,
    geoTransform: gt(WC),
    bands: 6,
    fill: (b, out) => out.forEach((_, i) => (out[i] = et0At(i % WC.width, Math.floor(i / WC.width), b))),
  });
  await writeInputGeoTiff(join(inputs, 'rain_normals.tif'), {
    width: WC.width,
    height: WC.height,
    geoTransform: gt(WC),
    bands: 12,
    fill: (b, out) => out.forEach((_, i) => (out[i] = normalAt(i % WC.width, Math.floor(i / WC.width), b))),
  });

  // The builds, as a user types them (two through the CLI process, the rest through the same function).
  built.elevation = await cli([
    'build',
    '--out',
    dataset,
    '--layer',
    'elevation',
    '--unit',
    'm',
    '--time-scale',
    'none',
    '--extent',
    'za',
    '--description',
    'Elevation above sea level (ETOPO5)',
    '--attribution',
    'ETOPO5, NOAA NGDC (public domain)',
    ETOPO,
  ]);
  built.tmin = await cli([
    'build',
    '--out',
    dataset,
    '--layer',
    'tmin',
    '--unit',
    '°C',
    '--time-scale',
    'daily',
    '--date-pattern',
    'tmin_{yyyy}{mm}{dd}.tif',
    '--extent',
    'tc',
    ...[1, 2, 3].map((d) => join(inputs, `tmin_2024010${d}.tif`)),
  ]);
  await buildRasterLayer({
    dir: dataset,
    dataType: 'precip',
    subDataType: 'annual',
    unit: 'mm',
    timeScale: 'annual',
    extent: 'sa',
    datePattern: 'cfsv2_annual_precip_{yyyy}_south_africa.tif',
    inputs: [2017, 2016].map((y) => join(inputs, `cfsv2_annual_precip_${y}_south_africa.tif`)),
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'et0',
    unit: 'mm',
    timeScale: 'monthly',
    extent: 'tc',
    dates: ['2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06'],
    inputs: [join(inputs, 'et0_2024_h1.tif')],
  });
  await buildRasterLayer({
    dir: dataset,
    dataType: 'rainnormal',
    subDataType: 'median',
    unit: 'mm',
    timeScale: 'calendar_month',
    extent: 'tc',
    dates: Array.from({ length: 12 }, (_, m) => String(m + 1)),
    inputs: [join(inputs, 'rain_normals.tif')],
  });
  catalog = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
  engine = createNodeEngine(dataset);
}, 240_000);

afterAll(async () => {
  await engine?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const layerOf = (dataType: string): RasterLayerEntry => catalog.rasters.find((l) => l.dataType === dataType)!;
const wkt = (p: Position) => `POINT (${p[0]} ${p[1]})`;
const square = (p: Position, d = 0.01) =>
  `POLYGON ((${p[0]} ${p[1]}, ${p[0] + d} ${p[1]}, ${p[0] + d} ${p[1] + d}, ${p[0]} ${p[1] + d}, ${p[0]} ${p[1]}))`;

async function post(
  endpoint: 'point' | 'polygon',
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(body) });
  return { status: res.status, body: res.body as Record<string, unknown> };
}

/** Every answer for `points` (one band per period key) equals GDAL's read of the built file's pixel. */
async function expectGdalPoints(
  l: RasterLayerEntry,
  body: Record<string, unknown>,
  points: Position[],
): Promise<number> {
  const res = await post('point', { ...body, wkts: points.map(wkt).join(';') });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  let withValue = 0;
  for (const p of points) {
    const got = res.body[wkt(p)] as Record<string, number | null> | number | null;
    const byKey = l.timeScale === null ? { '': got as number | null } : (got as Record<string, number | null>);
    for (const [key, v] of Object.entries(byKey)) {
      const file = l.files.find((f) => f.periods.includes(key))!;
      const want = await gdalPixel(join(dataset, file.path), file.periods.indexOf(key) + 1, p[0], p[1]);
      if (want === null) expect(v).toBeNull();
      else {
        expect(v).toBeCloseTo(want, 9);
        withValue++;
      }
    }
  }
  return withValue;
}

/** min, mean and max over small squares equal the exact-coverage oracle on the decoded file. */
async function expectOraclePolygons(
  l: RasterLayerEntry,
  body: Record<string, unknown>,
  corners: Position[],
): Promise<void> {
  for (const method of ['min', 'mean', 'max'] as const) {
    const res = await post('polygon', {
      ...body,
      wkts: corners.map((c) => square(c)).join(';'),
      options: { ...(body.options as object), aggregationMethod: method },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const c of corners) {
      const got = res.body[square(c)] as Record<string, number | null> | number | null;
      const byKey = l.timeScale === null ? { '': got as number | null } : (got as Record<string, number | null>);
      for (const [key, v] of Object.entries(byKey)) {
        const file = l.files.find((f) => f.periods.includes(key))!;
        const r = await decodeWhole(join(dataset, file.path));
        const ring: Position[] = [c, [c[0] + 0.01, c[1]], [c[0] + 0.01, c[1] + 0.01], [c[0], c[1] + 0.01], c];
        const raw = oracleStat(r, file.periods.indexOf(key), oracleCoverage([[ring]], r, COVERAGE_EPSILON), method);
        if (raw === null) expect(v).toBeNull();
        else expect(v).toBeCloseTo(raw * l.scale + l.offset, method === 'mean' ? 3 : 9);
      }
    }
  }
}

describe('building layers a dataset did not have', () => {
  it('prints what each CLI build wrote', () => {
    expect(built.elevation!.code, built.elevation!.stderr).toBe(0);
    expect(built.elevation!.stdout).toMatch(/^elevation — Elevation above sea level \(ETOPO5\)$/m);
    expect(built.elevation!.stdout).toMatch(/unit: +m$/m);
    expect(built.elevation!.stdout).toMatch(/time scale: +none \(undated\)$/m);
    expect(built.elevation!.stdout).toMatch(
      /extent: +za \[15\.958333\d*, -35\.541666\d*, 33\.541666\d*, -21\.958333\d*\]$/m,
    );
    expect(built.elevation!.stdout).toMatch(/grid: +211 × 163 px/);
    expect(built.elevation!.stdout).toMatch(/files: +1, [\d.]+ MB \(rasters\/elevation\/layer-[0-9a-f]{8}\.tif\)/);
    expect(built.tmin!.code, built.tmin!.stderr).toBe(0);
    expect(built.tmin!.stdout).toMatch(/dates: +3: 2024-01-01, 2024-01-02, 2024-01-03$/m);
    expect(built.tmin!.stderr).toMatch(/reprojecting .*tmin_20240101\.tif to EPSG:4326/);
  });

  it('declares every layer in the catalog and keeps the stations', () => {
    expect(catalog.stations?.count).toBeGreaterThan(0);
    const names = catalog.rasters
      .map((l) => `${l.dataType}/${l.subDataType}@${l.extent}:${l.timeScale}:${l.unit}`)
      .sort();
    expect(names).toEqual([
      'elevation/-@za:null:m',
      'et0/-@tc:monthly:mm',
      'precip/annual@sa:annual:mm',
      'rainnormal/median@tc:calendar_month:mm',
      'tmin/-@tc:daily:°C',
    ]);
    expect(layerOf('elevation')).toMatchObject({
      isDefault: true,
      attribution: 'ETOPO5, NOAA NGDC (public domain)',
      width: 211,
      height: 163,
      scale: 1,
      crs: 'EPSG:4326',
    });
    expect(layerOf('elevation').extentBbox).toEqual(layerOf('elevation').bbox);
    expect(layerOf('precip').files).toEqual([
      { path: expect.stringMatching(/^rasters\/precip-annual\/years-[0-9a-f]{8}\.tif$/), periods: ['2016', '2017'] },
    ]);
    expect(layerOf('precip').extentBbox).toEqual([16.4, -34.9, 32.95, -22.1]);
    expect(layerOf('et0').files[0]!.periods).toEqual([
      '2024-01-01',
      '2024-02-01',
      '2024-03-01',
      '2024-04-01',
      '2024-05-01',
      '2024-06-01',
    ]);
    for (const l of catalog.rasters) expect(l.description.length).toBeGreaterThan(3);
  });

  it('lists the layers with `climate-query layers`', async () => {
    const { code, stdout } = await cli(['layers', '--data', dataset]);
    expect(code).toBe(0);
    expect(stdout).toContain('5 raster layer(s)');
    expect(stdout).toContain('request:     {"dataType":"elevation","options":{"dataExtent":"za"}}');
    expect(stdout).toContain(
      'request:     {"dataType":"rainnormal","options":{"subDataType":"median","dataExtent":"tc","timeScale":"calendar_month"}}',
    );
  });
});

describe('user layers answer like GDAL and the coverage oracle', () => {
  it('elevation (undated, metres): the bundled ETOPO5 values themselves', async () => {
    const l = layerOf('elevation');
    const pts: Position[] = [
      [18.42, -33.93],
      [20.0, -32.2],
      [28.05, -26.2],
      [29.27, -29.0],
      [31.02, -29.85],
      [24.77, -28.74],
      [16.1, -35.4],
    ];
    const res = await post('point', {
      wkts: pts.map(wkt).join(';'),
      dataType: 'elevation',
      options: { dataExtent: 'za' },
    });
    expect(res.status).toBe(200);
    for (const p of pts) expect(res.body[wkt(p)]).toBe(await gdalPixel(ETOPO, 1, p[0], p[1]));
    expect(await expectGdalPoints(l, { dataType: 'elevation', options: { dataExtent: 'za' } }, pts)).toBe(pts.length);
    await expectOraclePolygons(l, { dataType: 'elevation', options: { dataExtent: 'za' } }, [
      [18.45, -33.95],
      [28.3, -26.04],
      [29.96, -29.0],
    ]);
  });

  it('daily Tmin from EPSG:32734, dated by pattern: the generating function within the storage step', async () => {
    const l = layerOf('tmin');
    const body = {
      dataType: 'tmin',
      options: { dataExtent: 'tc', timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-03',
    };
    const pts: Position[] = [
      [18.95, -33.62],
      [19.1, -33.8],
      [19.25, -33.9],
      [19.33, -33.55],
    ];
    expect(await expectGdalPoints(l, body, pts)).toBe(12);
    const res = await post('point', { ...body, wkts: pts.map(wkt).join(';') });
    for (const p of pts) {
      const v = res.body[wkt(p)] as Record<string, number>;
      expect(Object.keys(v)).toEqual(['2024-01-01', '2024-01-02', '2024-01-03']);
      // Bilinear warp of a near-linear field onto ~1 km pixels, then 0.1 °C storage: within 0.1 °C of the pixel-centre value.
      [1, 2, 3].forEach((d) =>
        expect(Math.abs(v[`2024-01-0${d}`]! - tminAt(p[0], p[1], d))).toBeLessThan(0.1 + 3 * l.resolution![0]),
      );
    }
    await expectOraclePolygons(l, body, [
      [19.0, -33.7],
      [19.2, -33.85],
    ]);
  });

  it('annual precipitation from files named by year, and monthly ET0 from --dates: the inputs within half a step', async () => {
    const precip = layerOf('precip');
    const pb = {
      dataType: 'precip',
      options: { subDataType: 'annual', dataExtent: 'sa', timeScale: 'annual' },
      startDate: '2016',
      endDate: '2017',
    };
    const pp: Position[] = [
      [18.6, -33.9],
      [25.6, -33.96],
      [28.0, -26.1],
      [31.0, -29.9],
    ];
    expect(await expectGdalPoints(precip, pb, pp)).toBe(8);
    const res = await post('point', { ...pb, wkts: pp.map(wkt).join(';') });
    for (const p of pp) {
      for (const y of [2016, 2017]) {
        // Within half a storage step; GDAL scales in float32, so add float32's precision at ~1000.
        const input = await gdalPixel(join(inputs, `cfsv2_annual_precip_${y}_south_africa.tif`), 1, p[0], p[1]);
        expect(Math.abs((res.body[wkt(p)] as Record<string, number>)[String(y)]! - input!)).toBeLessThanOrEqual(
          precip.scale / 2 + 1e-4,
        );
      }
    }
    await expectOraclePolygons(precip, pb, [
      [18.6, -33.9],
      [28.0, -26.1],
    ]);

    const et0 = layerOf('et0');
    const eb = {
      dataType: 'et0',
      options: { dataExtent: 'tc', timeScale: 'monthly' },
      startDate: '2024-02',
      endDate: '2024-05',
    };
    const ep: Position[] = [
      [18.33, -33.1],
      [19.87, -34.2],
      [20.41, -32.61],
    ];
    expect(await expectGdalPoints(et0, eb, ep)).toBe(12);
    const er = await post('point', { ...eb, wkts: ep.map(wkt).join(';') });
    for (const p of ep) {
      const v = er.body[wkt(p)] as Record<string, number>;
      expect(Object.keys(v)).toEqual(['2024-02-01', '2024-03-01', '2024-04-01', '2024-05-01']);
      for (const [k, b] of [
        ['2024-02-01', 2],
        ['2024-05-01', 5],
      ] as const) {
        expect(
          Math.abs(v[k]! - (await gdalPixel(join(inputs, 'et0_2024_h1.tif'), b, p[0], p[1]))!),
        ).toBeLessThanOrEqual(et0.scale / 2 + 1e-4);
      }
    }
    await expectOraclePolygons(et0, eb, [
      [18.33, -33.1],
      [19.87, -34.2],
    ]);
  });

  it('a calendar-month layer asked without dates answers all 12 months', async () => {
    const l = layerOf('rainnormal');
    const p: Position = [19.12, -33.37];
    for (const body of [
      { dataType: 'rainnormal', options: { subDataType: 'median', dataExtent: 'tc' } },
      { dataType: 'rainnormal', options: { subDataType: 'median', dataExtent: 'tc', timeScale: 'calendar_month' } },
    ]) {
      const res = await post('point', { ...body, wkts: wkt(p) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const v = res.body[wkt(p)] as Record<string, number>;
      expect(Object.keys(v)).toEqual(Array.from({ length: 12 }, (_, m) => `--${String(m + 1).padStart(2, '0')}`));
      for (const m of [1, 7, 12]) {
        const input = await gdalPixel(join(inputs, 'rain_normals.tif'), m, p[0], p[1]);
        expect(Math.abs(v[`--${String(m).padStart(2, '0')}`]! - input!)).toBeLessThanOrEqual(l.scale / 2 + 1e-4);
      }
    }
    const some = await post('point', {
      dataType: 'rainnormal',
      options: { subDataType: 'median', dataExtent: 'tc', timeScale: 'calendar_month' },
      startDate: '12',
      endDate: '01',
      wkts: wkt(p),
    });
    expect(Object.keys(some.body[wkt(p)] as object)).toEqual(['--12', '--01']);
    const half = await post('point', {
      dataType: 'rainnormal',
      options: { subDataType: 'median', dataExtent: 'tc' },
      startDate: '12',
      wkts: wkt(p),
    });
    expect(half.body).toMatchObject({ error: { field: '/options/timeScale' } });
  });
});

describe('requests are checked against what this dataset holds', () => {
  const p = 'POINT (19.1 -33.8)';
  const cases: Array<[string, unknown, string, RegExp]> = [
    [
      'a layer it lacks',
      {
        wkts: p,
        dataType: 'temp',
        options: { subDataType: 'min', dataExtent: 'tc', timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-01',
      },
      '/dataType',
      /"elevation", .*"tmin"/,
    ],
    [
      'a sub-type it lacks',
      {
        wkts: p,
        dataType: 'precip',
        options: { subDataType: 'monthly', dataExtent: 'sa', timeScale: 'annual' },
        startDate: '2016',
        endDate: '2016',
      },
      '/options/subDataType',
      /"annual"/,
    ],
    [
      'an extent the layer lacks',
      { wkts: p, dataType: 'elevation', options: { dataExtent: 'sa' } },
      '/options/dataExtent',
      /only for dataExtent "za"/,
    ],
    [
      'an extent the dataset lacks',
      { wkts: p, dataType: 'elevation', options: { dataExtent: 'xx' } },
      '/options/dataExtent',
      /"za", "tc", "sa"|"za"/,
    ],
    [
      'another time scale',
      {
        wkts: p,
        dataType: 'tmin',
        options: { dataExtent: 'tc', timeScale: 'monthly' },
        startDate: '2024-01',
        endDate: '2024-01',
      },
      '/options/timeScale',
      /"daily"/,
    ],
    [
      'dates on an undated layer',
      { wkts: p, dataType: 'elevation', options: { dataExtent: 'za' }, startDate: '2024' },
      '/startDate',
      /startDate/,
    ],
    [
      'dates it does not hold',
      {
        wkts: p,
        dataType: 'tmin',
        options: { dataExtent: 'tc', timeScale: 'daily' },
        startDate: '2024-01-02',
        endDate: '2024-01-05',
      },
      '/startDate',
      /2024-01-01 to 2024-01-03/,
    ],
  ];
  for (const [what, body, field, message] of cases) {
    it(`answers 400 naming ${field} for ${what}`, async () => {
      const res = await post('point', body);
      expect(res.status).toBe(400);
      const error = res.body.error as { field: string; message: string };
      expect(error.field).toBe(field);
      expect(error.message).toMatch(message);
    });
  }
});

describe('the build refuses what it cannot know or what does not fit', () => {
  const precip2016 = () => join(inputs, 'cfsv2_annual_precip_2016_south_africa.tif');
  const refused = async (options: Parameters<typeof buildRasterLayer>[0]) => {
    try {
      await buildRasterLayer(options);
    } catch (e) {
      return e as { code: string; field: string; message: string };
    }
    throw new Error('the build was not refused');
  };

  it('never dates a file from a guess (cfsv2_…_2016 once became month --02)', async () => {
    const short = await cli(['build', '--out', join(root, 'r1'), '--layer', 'rain/monthly_median', precip2016()]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(
      /Cannot tell the dates of .*cfsv2_annual_precip_2016_south_africa\.tif.*pass --dates .* or --date-pattern/,
    );
    const annual = await refused({
      dir: join(root, 'r1'),
      dataType: 'rain2',
      unit: 'mm',
      timeScale: 'annual',
      inputs: [precip2016()],
    });
    expect(annual.message).toMatch(/--date-pattern with \{yyyy\}/);
    const mismatch = await refused({
      dir: join(root, 'r1'),
      dataType: 'rain2',
      unit: 'mm',
      timeScale: 'annual',
      extent: 'sa',
      datePattern: 'precip_{yyyy}.tif',
      inputs: [precip2016()],
    });
    expect(mismatch.message).toMatch(/does not match --date-pattern "precip_\{yyyy\}\.tif"/);
    const tokens = await refused({
      dir: join(root, 'r1'),
      dataType: 'rain2',
      unit: 'mm',
      timeScale: 'daily',
      extent: 'sa',
      datePattern: 'cfsv2_annual_precip_{yyyy}_south_africa.tif',
      inputs: [precip2016()],
    });
    expect(tokens.message).toMatch(/lacks \{mm\}/);
    const described = join(inputs, 'described.tif');
    await writeInputGeoTiff(described, {
      width: 8,
      height: 6,
      geoTransform: [18, 0.02, 0, -33, 0, -0.02],
      bands: 2,
      descriptions: ['2023-01-01', 'tmax'],
      fill: (_b, out) => out.fill(1),
    });
    const contradicted = await refused({
      dir: join(root, 'r1'),
      dataType: 'tx',
      unit: '°C',
      timeScale: 'daily',
      extent: 'tc',
      dates: ['2023-01-02', '2023-01-03'],
      inputs: [described],
    });
    expect(contradicted.message).toMatch(
      /band 1 is dated 2023-01-01 by its band description, but the dates passed make it 2023-01-02/,
    );
    const agreed = await buildRasterLayer({
      dir: join(root, 'r1'),
      dataType: 'tx',
      unit: '°C',
      timeScale: 'daily',
      extent: 'tc',
      dates: ['2023-01-01', '2023-01-03'],
      inputs: [described],
    });
    expect(agreed.layer.files[0]!.periods).toEqual(['2023-01-01', '2023-01-03']);
    const count = await refused({
      dir: join(root, 'r1'),
      dataType: 'et0',
      unit: 'mm',
      timeScale: 'monthly',
      extent: 'tc',
      dates: ['2024-01', '2024-02'],
      inputs: [join(inputs, 'et0_2024_h1.tif')],
    });
    expect(count.message).toMatch(/--dates lists 2 date\(s\) but the inputs have 6 band\(s\)/);
  });

  it('asks for unit, time scale and extent when it cannot know them', async () => {
    const base = { dir: join(root, 'r2'), dataType: 'et0', inputs: [join(inputs, 'et0_2024_h1.tif')] };
    expect((await refused({ ...base, timeScale: 'monthly' })).message).toMatch(/pass --unit/);
    expect((await refused({ ...base, unit: 'mm' })).message).toMatch(
      /pass --time-scale daily, dekadal, monthly, annual, calendar_month .* or none/,
    );
    const ambiguous = await cli([
      'build',
      '--out',
      join(root, 'r2'),
      '--layer',
      'et0',
      '--unit',
      'mm',
      '--time-scale',
      'monthly',
      '--dates',
      '2024-01,2024-02,2024-03,2024-04,2024-05,2024-06',
      join(inputs, 'et0_2024_h1.tif'),
    ]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/lies within "tc" and "sa": pass --extent NAME/);
    const undated = await refused({ ...base, unit: 'mm', timeScale: null, extent: 'tc' });
    expect(undated.message).toMatch(/undated layer .* is one single-band file; got 1 file\(s\) with 6 band\(s\)/);
  });

  it('checks a declared extent against the grid', async () => {
    const sa = await refused({
      dir: join(root, 'r3'),
      dataType: 'elevation',
      unit: 'm',
      timeScale: null,
      extent: 'sa',
      inputs: [ETOPO],
    });
    expect(sa).toMatchObject({ option: 'inputs' });
    expect(sa.message).toMatch(
      /reaches beyond extent "sa" \[16\.4, -34\.9, 32\.95, -22\.1\].*pass --extent with a new name/,
    );
    // A gdd layer declared for the Western Cape accepted a grid of all South Africa.
    const gdd = await refused({
      dir: join(root, 'r3'),
      dataType: 'gdd',
      subDataType: 'apples',
      datePattern: 'cfsv2_annual_precip_{yyyy}_south_africa.tif',
      inputs: [precip2016()],
    });
    expect(gdd.message).toMatch(/reaches beyond extent "tc"/);
  });

  it('adds to the layer it builds (its other years kept), or replaces it whole with replace, and touches no other', async () => {
    const before = catalog.rasters.map((l) => l.dataType).sort();
    const build = (replace: boolean) =>
      buildRasterLayer({
        dir: dataset,
        dataType: 'et0',
        unit: 'mm',
        timeScale: 'monthly',
        extent: 'tc',
        dates: ['2023-07', '2023-08', '2023-09', '2023-10', '2023-11', '2023-12'],
        inputs: [join(inputs, 'et0_2024_h1.tif')],
        replace,
      });
    await build(false);
    let after = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
    expect(after.rasters.map((l) => l.dataType).sort()).toEqual(before);
    const grown = after.rasters.find((l) => l.dataType === 'et0')!.files.map((f) => f.path);
    expect(grown).toEqual([
      expect.stringMatching(/^rasters\/et0\/2023-[0-9a-f]{8}\.tif$/),
      expect.stringMatching(/^rasters\/et0\/2024-[0-9a-f]{8}\.tif$/),
    ]);
    await build(true);
    after = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
    expect(after.rasters.map((l) => l.dataType).sort()).toEqual(before);
    expect(after.rasters.find((l) => l.dataType === 'et0')!.files.map((f) => f.path)).toEqual([
      expect.stringMatching(/^rasters\/et0\/2023-[0-9a-f]{8}\.tif$/),
    ]);
    expect(after.stations).toEqual(catalog.stations);
    expect(after.files.some((f) => f.path === grown[1])).toBe(false);
    expect(existsSync(join(dataset, grown[1]!))).toBe(false);
  });

  it('lets a rebuilt layer redefine an extent only it declares, and holds other layers to it', async () => {
    const dir = join(root, 'r4');
    const wide = join(inputs, 'wide.tif');
    await writeInputGeoTiff(wide, {
      width: 20,
      height: 16,
      geoTransform: [15, 1, 0, -20, 0, -1],
      bands: 1,
      fill: (_b, out) => out.fill(100),
    });
    await buildRasterLayer({ dir, dataType: 'elevation', unit: 'm', timeScale: null, extent: 'za', inputs: [ETOPO] });
    const slope = await refused({
      dir,
      dataType: 'slope',
      unit: 'degree',
      timeScale: null,
      extent: 'za',
      inputs: [wide],
    });
    expect(slope.message).toMatch(/reaches beyond extent "za"/);
    // Its one file rebuilt: nothing of the old layer is kept, so the new grid needs no --replace.
    const rebuilt = await buildRasterLayer({
      dir,
      dataType: 'elevation',
      unit: 'm',
      timeScale: null,
      extent: 'za',
      inputs: [wide],
    });
    expect(rebuilt.layer.extentBbox).toEqual([15, -36, 35, -20]);
  });
});
