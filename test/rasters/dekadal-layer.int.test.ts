/**
 * A dekadal layer as CHIRPS publishes one: single-band GeoTIFFs named
 * `chirps-v2.0.2024.01.1.tif` (dekad 1–3 of the month), dated by
 * `--date-pattern 'chirps-v2.0.{yyyy}.{mm}.{d}.tif'`, built with the CLI as a
 * user types it. Answers by /api/point/ equal GDAL's read of the input file
 * of that dekad (within the storage step) and of the built file (exactly),
 * in both layouts; dates that are not a dekad's first day are refused.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import type { Position } from '../../src/contract/wkt.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';
import { gdalPixel } from '../helpers/gdal-read.ts';
import { hash } from '../helpers/raster-fixture.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const GRID = { west: 18, north: -32.5, res: 0.05, width: 50, height: 40 };
const NODATA = -9999;
/** The dekads the inputs hold: over a new year, so the layer has two year files. */
const DEKADS = [
  ['2023', '12', 3],
  ['2024', '01', 1],
  ['2024', '01', 2],
  ['2024', '01', 3],
  ['2024', '02', 1],
] as const;
const KEYS = ['2023-12-21', '2024-01-01', '2024-01-11', '2024-01-21', '2024-02-01'];
const nameOf = ([y, m, d]: (typeof DEKADS)[number]) => `chirps-v2.0.${y}.${m}.${d}.tif`;
/** Dekadal rain (mm): dry west, wetter east, a different dekad each file; the sea corner is nodata. */
const rainAt = (c: number, r: number, k: number) => (c + r < 6 ? NODATA : 5 + 0.8 * c + 40 * hash(c, r, k + 50));

let root: string;
let dataset: string;
let engine: ClimateEngine;
let catalog: Catalog;
const runs: Record<string, { code: number; stdout: string; stderr: string }> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'climate-query-dekads-'));
  const inputs = join(root, 'chirps');
  dataset = join(root, 'dataset');
  await mkdir(inputs, { recursive: true });
  for (const [k, d] of DEKADS.entries()) {
    await writeInputGeoTiff(join(inputs, nameOf(d)), {
      width: GRID.width,
      height: GRID.height,
      geoTransform: [GRID.west, GRID.res, 0, GRID.north, 0, -GRID.res],
      nodata: NODATA,
      bands: 1,
      fill: (_b, out) => out.forEach((_, i) => (out[i] = rainAt(i % GRID.width, Math.floor(i / GRID.width), k))),
    });
  }
  const files = DEKADS.map((d) => join(inputs, nameOf(d)));
  const common = ['--unit', 'mm', '--time-scale', 'dekadal', '--extent', 'tc', '--scale', '0.01'];
  const pattern = ['--date-pattern', 'chirps-v2.0.{yyyy}.{mm}.{d}.tif'];
  runs.map = await cli(['build', '--out', dataset, '--layer', 'chirps', ...common, ...pattern, ...files]);
  runs.zarr = await cli([
    'build',
    '--out',
    dataset,
    '--layer',
    'chirpz',
    ...common,
    ...pattern,
    '--layout',
    'zarr',
    ...files,
  ]);
  runs.noToken = await cli([
    'build',
    '--out',
    dataset,
    '--layer',
    'bad',
    ...common,
    '--date-pattern',
    'chirps-v2.0.{yyyy}.{mm}.tif',
    ...files,
  ]);
  catalog = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
  engine = createNodeEngine(dataset);
}, 240_000);

afterAll(async () => {
  await engine?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const layerOf = (dataType: string): RasterLayerEntry => catalog.rasters.find((l) => l.dataType === dataType)!;
const wkt = (p: Position) => `POINT (${p[0]} ${p[1]})`;
const POINTS: Position[] = [
  [18.01, -32.51], // the nodata corner
  [18.42, -32.77],
  [19.13, -33.9],
  [20.41, -34.44],
  [19.99, -33.01],
];

async function point(dataType: string, startDate: string, endDate: string) {
  const res = await engine.handle({
    method: 'POST',
    path: '/api/point/',
    body: JSON.stringify({
      dataType,
      options: { dataExtent: 'tc', timeScale: 'dekadal' },
      wkts: POINTS.map(wkt).join(';'),
      startDate,
      endDate,
    }),
  });
  return { status: res.status, body: res.body as Record<string, unknown> };
}

describe('a dekadal layer named as CHIRPS names its files', () => {
  it('builds with {d} in the pattern, in both layouts; a pattern without {d} is refused with what to pass', () => {
    expect(runs.map!.code, runs.map!.stderr).toBe(0);
    expect(runs.map!.stdout).toMatch(/dates: +5: 2023-12-21, 2024-01-01, 2024-01-11, 2024-01-21, 2024-02-01$/m);
    expect(runs.zarr!.code, runs.zarr!.stderr).toBe(0);
    expect(runs.noToken!.code).not.toBe(0);
    expect(runs.noToken!.stderr).toMatch(/lacks \{d\}/);
    const l = layerOf('chirps');
    expect(l.timeScale).toBe('dekadal');
    // A file a year, as every dated layer of days or months.
    expect(l.files.map((f) => f.periods)).toEqual([['2023-12-21'], KEYS.slice(1)]);
    expect(layerOf('chirpz').layout).toBe('zarr');
  });

  it('answers equal GDAL on the input of each dekad (storage step) and on the built file (exactly)', async () => {
    for (const dataType of ['chirps', 'chirpz']) {
      const l = layerOf(dataType);
      const res = await point(dataType, '2023-12-21', '2024-02-01');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      let compared = 0;
      for (const p of POINTS) {
        const got = res.body[wkt(p)] as Record<string, number | null>;
        expect(Object.keys(got)).toEqual(KEYS);
        for (const [k, key] of KEYS.entries()) {
          const input = await gdalPixel(join(root, 'chirps', nameOf(DEKADS[k]!)), 1, p[0], p[1]);
          const file = l.files.find((f) => f.periods.includes(key))!;
          const stored = await gdalPixel(join(dataset, file.path), file.periods.indexOf(key) + 1, p[0], p[1]);
          if (input === null) {
            expect(got[key], `${dataType} ${wkt(p)} ${key}`).toBeNull();
            continue;
          }
          expect(Math.abs(got[key]! - input), `${dataType} ${wkt(p)} ${key}`).toBeLessThanOrEqual(l.scale / 2 + 1e-9);
          expect(got[key]).toBeCloseTo(stored!, 9);
          compared++;
        }
      }
      // Four land points × five dekads.
      expect(compared).toBe(20);
    }
  });

  it('a date that is not a dekad’s first day is a 400 naming the field; a dekad the layer lacks names what it holds', async () => {
    const mid = await point('chirps', '2024-01-15', '2024-01-21');
    expect(mid.status).toBe(400);
    expect(mid.body.error).toMatchObject({ code: 'invalid_date', field: '/startDate' });
    expect((mid.body.error as { message: string }).message).toMatch(/first day of a dekad/);
    const outside = await point('chirps', '2024-02-01', '2024-02-21');
    expect(outside.status).toBe(400);
    expect(JSON.stringify(outside.body)).toMatch(/2023-12-21 to 2024-02-01/);
  });
});
