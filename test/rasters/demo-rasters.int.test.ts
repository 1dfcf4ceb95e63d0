/**
 * The demo raster layers: built once (the real build, as `climate-query
 * demo` runs it), then checked for completeness, size, plausibility and
 * consistency between layers through the engine, and measured over HTTP.
 */
import { urlLocation } from '../../src/dataset/location.ts';
import { fileLocation } from '../../src/node/file-location.ts';
import { readdir, stat } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRasters, DEMO_SEASONS, DEMO_YEAR } from '../../src/builder/demo-rasters.ts';
import { parseRange, type TimeScale } from '../../src/contract/periods.ts';
import { RASTER_FAMILIES, type RasterDataType } from '../../src/contract/raster-layers.ts';
import type { RasterQuery, RasterResponse } from '../../src/contract/types.ts';
import type { Position } from '../../src/contract/wkt.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createRasterEngine, type RasterEngine } from '../../src/rasters/raster-engine.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import { rng } from '../helpers/random-shapes.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

let dir = '';
let seconds = 0;
let catalog: Catalog;
let engine: RasterEngine;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'climate-query-demo-rasters-test-'));
  const t = performance.now();
  await buildDemoRasters(dir);
  seconds = (performance.now() - t) / 1000;
  catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
  engine = createRasterEngine({ catalog, dataset: fileLocation(dir) });
});

afterAll(async () => {
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function du(path: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(path, { withFileTypes: true })) {
    total += e.isDirectory() ? await du(join(path, e.name)) : (await stat(join(path, e.name))).size;
  }
  return total;
}

function q(
  dataType: string,
  subDataType: string,
  range: [string, string] | null,
  points: Position[],
  extent?: string,
): RasterQuery {
  const family = RASTER_FAMILIES[dataType as RasterDataType];
  const scale = family.timeScale as TimeScale | null;
  return {
    endpoint: 'point',
    dataType,
    subDataType,
    extent: extent ?? family.extent,
    range: range && scale ? parseRange(scale, range[0], range[1]) : null,
    geometries: points.map((p, i) => ({ kind: 'point', key: `P${i}`, index: i, position: p })),
    aggregationMethod: null,
  };
}

const series = (r: RasterResponse, i: number) => r[`P${i}`] as Record<string, number | null>;

/** Random land points of the tc grid (land = temp has a value). */
async function landPoints(n: number, seed: number): Promise<Position[]> {
  const rand = rng(seed);
  const out: Position[] = [];
  while (out.length < n) {
    const batch: Position[] = Array.from({ length: 10 }, () => [17.8 + rand() * 6.3, -30.5 - rand() * 4.3]);
    const r = await engine.query(q('temp', 'mean', ['2024-01-01', '2024-01-01'], batch));
    batch.forEach((p, i) => {
      if (series(r, i)['2024-01-01'] !== null && out.length < n) out.push(p);
    });
  }
  return out;
}

describe('demo rasters', () => {
  it('holds every layer family and sub-type with the documented periods, within 100 MB', async () => {
    const names = catalog.rasters.map((l) => `${l.dataType}/${l.subDataType}`).sort();
    const want = Object.values(RASTER_FAMILIES)
      .flatMap((f) => f.subTypes.map((s) => `${f.dataType}/${s}`))
      .sort();
    expect(names).toEqual(want);
    const periods = (d: string, s: string) =>
      catalog.rasters.find((l) => l.dataType === d && l.subDataType === s)!.files.flatMap((f) => f.periods);
    expect(periods('temp', 'mean')).toHaveLength(366);
    expect(periods('temp', 'min')[0]).toBe(`${DEMO_YEAR}-01-01`);
    expect(periods('gdd', 'grapes')).toEqual(DEMO_SEASONS.map(String));
    expect(periods('chill', 'ucui')).toEqual(DEMO_SEASONS.map(String));
    expect(periods('frost', '-')).toHaveLength(12);
    expect(periods('rain', 'monthly_median')).toHaveLength(12);
    expect(periods('windspeed', '150')).toEqual(['']);
    for (const l of catalog.rasters) {
      expect(l.crs).toBe('EPSG:4326');
      if (l.extent === 'tc') expect(l.resolution).toEqual([0.02, 0.02]);
    }
    const bytes = await du(dir);
    console.log(`[demo rasters] built in ${seconds.toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB on disk`);
    // Build time is measured by `npm run bench` (docs/performance.md), not asserted here: other test files share the 2 cores.
    expect(bytes).toBeLessThan(100e6);
  });

  it('has nodata over the sea in every layer', async () => {
    // Open sea off the west, south-west and south coasts, inside both grids.
    const sea: Position[] = [
      [17.75, -32.0],
      [19.0, -34.85],
      [23.5, -34.6],
    ];
    for (const l of catalog.rasters) {
      // Monthly keys are yyyy-mm-01; requests name the month as yyyy-mm.
      const first = l.timeScale === 'monthly' ? l.files[0]!.periods[0]!.slice(0, 7) : l.files[0]!.periods[0]!;
      const range = first === '' ? null : ([first, first] as [string, string]);
      const r = await engine.query(q(l.dataType, l.subDataType, range, sea, l.extent));
      for (let i = 0; i < sea.length; i++) {
        const v = r[`P${i}`];
        expect(
          v === null || (typeof v === 'object' && Object.values(v!).every((x) => x === null)),
          `${l.dataType}/${l.subDataType} at sea`,
        ).toBe(true);
      }
    }
  });

  it('daily temperatures: min ≤ mean ≤ max, mean = (min + max) / 2, January warmer than July', async () => {
    const pts = await landPoints(20, 1);
    for (let k = 0; k < pts.length; k += 10) {
      const batch = pts.slice(k, k + 10);
      const year: [string, string] = [`${DEMO_YEAR}-01-01`, `${DEMO_YEAR}-12-31`];
      const [lo, mid, hi] = await Promise.all(
        ['min', 'mean', 'max'].map((s) => engine.query(q('temp', s, year, batch))),
      );
      batch.forEach((_, i) => {
        const [a, m, b] = [series(lo!, i), series(mid!, i), series(hi!, i)];
        let jan = 0;
        let jul = 0;
        for (const key of Object.keys(m)) {
          expect(a[key]!).toBeLessThanOrEqual(m[key]!);
          expect(m[key]!).toBeLessThanOrEqual(b[key]!);
          expect(Math.abs(m[key]! - (a[key]! + b[key]!) / 2)).toBeLessThanOrEqual(0.05 + 1e-9);
          if (key.slice(5, 7) === '01') jan += m[key]! / 31;
          if (key.slice(5, 7) === '07') jul += m[key]! / 31;
        }
        expect(jan).toBeGreaterThan(jul + 3);
        expect(jan).toBeGreaterThan(15);
        expect(jan).toBeLessThan(32);
      });
    }
  });

  it('frost days per month equal the days with Tmin < 0 °C in the temp/min layer (ETCCDI FD, as station frost_days)', async () => {
    // Inland and high points, where frost happens.
    const pts: Position[] = [
      [20.67, -32.4],
      [19.31, -33.37],
      [22.58, -32.35],
      [20.85, -33.2],
      [21.9, -31.9],
      [23.5, -31.2],
    ];
    const tmin = await engine.query(q('temp', 'min', [`${DEMO_YEAR}-01-01`, `${DEMO_YEAR}-12-31`], pts));
    const frost = await engine.query(q('frost', '-', [`${DEMO_YEAR}-01`, `${DEMO_YEAR}-12`], pts));
    let total = 0;
    pts.forEach((_, i) => {
      const counts = new Map<string, number>();
      for (const [key, v] of Object.entries(series(tmin, i))) {
        const month = `${key.slice(0, 7)}-01`;
        counts.set(month, (counts.get(month) ?? 0) + (v !== null && v < 0 ? 1 : 0));
      }
      for (const [month, n] of Object.entries(series(frost, i))) {
        expect(n, `P${i} ${month}`).toBe(counts.get(month));
        total += n!;
      }
    });
    expect(total).toBeGreaterThan(20);
  });

  it('gdd and chill are ordered as their definitions require', async () => {
    const pts = await landPoints(10, 2);
    const seasons: [string, string] = [String(DEMO_SEASONS[0]), String(DEMO_SEASONS[DEMO_SEASONS.length - 1])];
    const get = async (d: RasterDataType, s: string) => engine.query(q(d, s, seasons, pts));
    const [apples, grapes, citrus, dpcu, dpcui, ucu, ucui] = await Promise.all([
      get('gdd', 'apples'),
      get('gdd', 'grapes'),
      get('gdd', 'citrus'),
      get('chill', 'dpcu'),
      get('chill', 'dpcui'),
      get('chill', 'ucu'),
      get('chill', 'ucui'),
    ]);
    pts.forEach((_, i) => {
      for (const y of DEMO_SEASONS.map(String)) {
        const v = (r: RasterResponse) => series(r, i)[y]!;
        // Lower base, more degree days.
        expect(v(apples)).toBeGreaterThan(v(grapes));
        expect(v(grapes)).toBeGreaterThan(v(citrus));
        expect(v(citrus)).toBeGreaterThanOrEqual(0);
        // Positive daily totals only can never be less than the plain Utah sum; the interim is a prefix of the season.
        expect(v(dpcu)).toBeGreaterThanOrEqual(v(ucu) - 1);
        expect(v(dpcui)).toBeGreaterThanOrEqual(v(ucui) - 1);
        expect(v(dpcu)).toBeGreaterThanOrEqual(v(dpcui) - 1);
        expect(v(dpcui)).toBeGreaterThanOrEqual(0);
      }
    });
  });

  it('rain falls in winter in the south-west and in summer in the north-east; wind grows with height', async () => {
    const sw: Position = [19.0, -33.8];
    const ne: Position = [28.2, -25.8];
    const rain = await engine.query(q('rain', 'monthly_median', ['01', '12'], [sw, ne]));
    expect(Object.keys(series(rain, 0))).toEqual([
      '--01',
      '--02',
      '--03',
      '--04',
      '--05',
      '--06',
      '--07',
      '--08',
      '--09',
      '--10',
      '--11',
      '--12',
    ]);
    expect(series(rain, 0)['--06']!).toBeGreaterThan(2 * series(rain, 0)['--01']!);
    expect(series(rain, 1)['--01']!).toBeGreaterThan(2 * series(rain, 1)['--06']!);
    const pts: Position[] = [sw, ne, [24, -30], [31, -27.5], [18.5, -31]];
    const speeds = await Promise.all(['20', '50', '100', '150'].map((h) => engine.query(q('windspeed', h, null, pts))));
    pts.forEach((_, i) => {
      const v = speeds.map((s) => s[`P${i}`] as number);
      for (let k = 1; k < v.length; k++) expect(v[k]!).toBeGreaterThan(v[k - 1]!);
      expect(v[0]!).toBeGreaterThan(1);
      expect(v[3]!).toBeLessThan(15);
    });
  });

  it('10 points × 366 daily dates over HTTP: one chunk and its 8-byte digest per point, nothing before them', async () => {
    const server = await startRangeServer(dir);
    try {
      const layer = catalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'mean')!;
      // Ten points in ten different tiles of land.
      const pts = (await landPoints(60, 3)).filter((p, i, all) => {
        const tile = (x: Position) =>
          `${Math.floor((x[0] - layer.bbox[0]) / 0.16)},${Math.floor((layer.bbox[3] - x[1]) / 0.16)}`;
        return all.findIndex((o) => tile(o) === tile(p)) === i;
      });
      expect(pts.length).toBeGreaterThanOrEqual(10);
      const ten = pts.slice(0, 10);
      const http = createRasterEngine({ catalog, dataset: urlLocation(server.url) });
      const t = performance.now();
      const res = await http.query(q('temp', 'mean', [`${DEMO_YEAR}-01-01`, `${DEMO_YEAR}-12-31`], ten));
      const ms = performance.now() - t;
      // Every request is a chunk of the store (`<store>/<variable>/0.<row>.<col>`), at most one per point,
      // or that chunk's 8 bytes of the store's digests (docs/decisions/0004-chunk-digests.md).
      const store = layer.files[0]!.path.replace(/[.]/g, '[.]');
      const chunk = new RegExp(`^/${store}/${layer.zarr!.variable}/0[.]\\d+[.]\\d+$`);
      const digests = server.log.filter((e) => decodeURIComponent(e.path) === `/${layer.files[0]!.path}/chunk-digests`);
      for (const e of server.log) if (!digests.includes(e)) expect(decodeURIComponent(e.path)).toMatch(chunk);
      expect(server.requests - digests.length).toBeLessThanOrEqual(10);
      expect(digests.length).toBe(server.requests - digests.length);
      for (const d of digests) expect(d.bytes).toBe(8);
      expect(Object.values(series(res, 0))).toHaveLength(366);
      // The same answer as from local files.
      expect(res).toEqual(await engine.query(q('temp', 'mean', [`${DEMO_YEAR}-01-01`, `${DEMO_YEAR}-12-31`], ten)));
      console.log(
        `[raster reads] demo temp/mean (366 dates, ${layer.width}×${layer.height} px): 10 points × 366 days cold: ${server.requests} requests, ` +
          `${(server.bytes / 1024).toFixed(0)} KiB, ${ms.toFixed(0)} ms`,
      );
      await http.close();
    } finally {
      await server.close();
    }
  });
});
