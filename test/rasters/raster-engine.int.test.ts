/**
 * The raster engine against independent oracles, on a fixture built by the
 * real raster build: point values against a whole-raster array lookup,
 * polygon statistics against per-pixel polygon clipping, over HTTP Range
 * requests (a real local server) and over local files.
 */
import { urlLocation } from '../../src/dataset/location.ts';
import { fileLocation } from '../../src/node/file-location.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { parseRange } from '../../src/contract/periods.ts';
import type { AggregationMethod, RasterDataType } from '../../src/contract/raster-layers.ts';
import type { RasterQuery } from '../../src/contract/types.ts';
import type { ParsedGeometry, Position } from '../../src/contract/wkt.ts';
import type { RasterLayerEntry } from '../../src/dataset/catalog.ts';
import type { ByteSource } from '../../src/io/byte-source.ts';
import { COVERAGE_EPSILON } from '../../src/rasters/coverage.ts';
import { openLocalOrHttpSource } from '../../src/io/file-source.ts';
import { createRasterEngine, type RasterEngine } from '../../src/rasters/raster-engine.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { buildRasterFixture, FIXTURE_GRID, windAt, type RasterFixture } from '../helpers/raster-fixture.ts';
import { decodeWhole, lookup, oracleCoverage, oracleStat, type DecodedRaster } from '../helpers/raster-oracle.ts';
import { randomShapes, rng, toWkt } from '../helpers/random-shapes.ts';

let fx: RasterFixture;
let server: RangeServer;
let httpEngine: RasterEngine;
let fileEngine: RasterEngine;
const decoded = new Map<string, DecodedRaster>();

beforeAll(async () => {
  fx = await buildRasterFixture();
  server = await startRangeServer(fx.dataset);
  httpEngine = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url) });
  fileEngine = createRasterEngine({ catalog: fx.catalog, dataset: fileLocation(fx.dataset) });
});

afterAll(async () => {
  await httpEngine?.close();
  await fileEngine?.close();
  await server?.close();
  await fx?.cleanup();
});

function layerOf(dataType: RasterDataType, sub: string): RasterLayerEntry {
  const l = fx.catalog.rasters.find((r) => r.dataType === dataType && r.subDataType === sub);
  if (!l) throw new Error(`fixture has no ${dataType}/${sub}`);
  return l;
}

async function decodedFile(path: string, layer: RasterLayerEntry): Promise<DecodedRaster> {
  let d = decoded.get(path);
  // A store is indexed on the catalog's grid: its pixel centres may put a point on a pixel line an ulp off.
  const [west, , , north] = layer.bbox;
  const grid = { west, north, resX: layer.resolution![0], resY: layer.resolution![1] };
  if (!d)
    decoded.set(path, (d = await decodeWhole(join(fx.dataset, path), layer.layout === 'zarr' ? grid : undefined)));
  return d;
}

/** Oracle for one layer and period key: (file decoded whole, band index). */
async function bandOf(layer: RasterLayerEntry, key: string): Promise<[DecodedRaster, number]> {
  const file = layer.files.find((f) => f.periods.includes(key))!;
  return [await decodedFile(file.path, layer), file.periods.indexOf(key)];
}

const toUnits = (layer: RasterLayerEntry, raw: number | null) =>
  raw === null ? null : raw * layer.scale + layer.offset;

function query(
  layer: RasterLayerEntry,
  geometries: ParsedGeometry[],
  range: [string, string] | null,
  method: AggregationMethod | null,
): RasterQuery {
  return {
    endpoint: method === null ? 'point' : 'polygon',
    dataType: layer.dataType,
    subDataType: layer.subDataType,
    extent: layer.extent,
    range: range && layer.timeScale ? parseRange(layer.timeScale, range[0], range[1]) : null,
    geometries,
    aggregationMethod: method,
  };
}

const point = (p: Position, i: number): ParsedGeometry => ({
  kind: 'point',
  key: `POINT (${p[0]} ${p[1]})`,
  index: i,
  position: p,
});

const g = FIXTURE_GRID;
const day = (d: number) => new Date(Date.UTC(2023, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);

describe('raster engine: points', () => {
  it('returns the full-array value of the containing pixel for 300 random points (HTTP and file)', async () => {
    const layer = layerOf('temp', 'mean');
    const rand = rng(42);
    let checked = 0;
    let withValue = 0;
    for (let batch = 0; batch < 30; batch++) {
      // 10% of the points fall outside the grid, a few exactly on pixel lines.
      const pts: Position[] = Array.from({ length: 10 }, (_, i) => {
        const c = -5 + rand() * (g.width + 10);
        const r = -5 + rand() * (g.height + 10);
        const onLine = i === 9;
        return [g.west + (onLine ? Math.round(c) : c) * g.res, g.north - (onLine ? Math.round(r) : r) * g.res];
      });
      const d0 = Math.floor(rand() * 360);
      const range: [string, string] = [day(d0), day(d0 + Math.floor(rand() * 5))];
      const engine = batch % 2 === 0 ? httpEngine : fileEngine;
      const res = await engine.query(query(layer, pts.map(point), range, null));
      expect(Object.keys(res)).toEqual(pts.map((p) => `POINT (${p[0]} ${p[1]})`));
      for (const p of pts) {
        const values = res[`POINT (${p[0]} ${p[1]})`] as Record<string, number | null>;
        expect(Object.keys(values)).toEqual(parseRange('daily', range[0], range[1]).keys);
        for (const [key, v] of Object.entries(values)) {
          const [r, b] = await bandOf(layer, key);
          const want = toUnits(layer, lookup(r, b, p[0], p[1]));
          if (want === null) expect(v).toBeNull();
          else expect(v).toBeCloseTo(want, 9);
          checked++;
          if (want !== null) withValue++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(withValue).toBeGreaterThan(checked * 0.6);
  });

  it('reads dates from both files of a layer split by year', async () => {
    const layer = layerOf('temp', 'max');
    expect(layer.files.map((f) => f.path.split('/').pop())).toEqual([
      expect.stringMatching(/^2023-[0-9a-f]{8}\.tif$/),
      expect.stringMatching(/^2024-[0-9a-f]{8}\.tif$/),
    ]);
    const pts: Position[] = [
      [18.31, -33.41],
      [19.55, -33.97],
    ];
    const res = await httpEngine.query(query(layer, pts.map(point), ['2023-12-28', '2024-01-03'], null));
    for (const p of pts) {
      const values = res[`POINT (${p[0]} ${p[1]})`] as Record<string, number | null>;
      expect(Object.keys(values)).toHaveLength(7);
      for (const [key, v] of Object.entries(values)) {
        const [r, b] = await bandOf(layer, key);
        expect(v).toBeCloseTo(toUnits(layer, lookup(r, b, p[0], p[1]))!, 9);
      }
    }
  });

  it('answers an undated layer with the number itself', async () => {
    const layer = layerOf('windspeed', '20');
    const p: Position = [19.37, -33.3];
    const res = await httpEngine.query(query(layer, [point(p, 0)], null, null));
    const [r] = await bandOf(layer, '');
    const want = toUnits(layer, lookup(r, 0, p[0], p[1]));
    expect(want).not.toBeNull();
    expect(res[`POINT (${p[0]} ${p[1]})`]).toBeCloseTo(want!, 9);
    const poly: ParsedGeometry = {
      kind: 'polygon',
      key: 'P',
      index: 0,
      multi: false,
      polygons: [[[p, [p[0] + 0.05, p[1]], [p[0] + 0.05, p[1] + 0.03], p]]],
    };
    const mean = (await httpEngine.query(query(layer, [poly], null, 'mean'))).P;
    const oracle = toUnits(
      layer,
      oracleStat(r, 0, oracleCoverage(poly.kind === 'polygon' ? poly.polygons : [], r, COVERAGE_EPSILON), 'mean'),
    );
    expect(typeof mean).toBe('number');
    expect(mean as number).toBeCloseTo(oracle!, 4);
  });

  it('keeps calendar-month keys in the wrapped order asked for', async () => {
    const layer = layerOf('rain', 'monthly_median');
    expect(layer.files[0]!.periods).toEqual([
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
    const p: Position = [19.01, -33.71];
    const res = (await fileEngine.query(query(layer, [point(p, 0)], ['11', '02'], null)))[
      `POINT (${p[0]} ${p[1]})`
    ] as Record<string, number>;
    expect(Object.keys(res)).toEqual(['--11', '--12', '--01', '--02']);
    for (const [key, v] of Object.entries(res)) {
      const [r, b] = await bandOf(layer, key);
      expect(v).toBeCloseTo(toUnits(layer, lookup(r, b, p[0], p[1]))!, 9);
    }
  });

  it('puts a reprojected (UTM) input back on lon/lat correctly', async () => {
    const layer = layerOf('windspeed', '50');
    expect(layer.crs).toBe('EPSG:4326');
    const rand = rng(5);
    const pts: Position[] = Array.from({ length: 10 }, () => [18.1 + rand() * 1.8, -33.1 - rand() * 1.2]);
    const res = await fileEngine.query(query(layer, pts.map(point), null, null));
    // The input is linear in lon/lat, 1 km UTM cells; bilinear warping keeps it within ~0.05 m/s.
    for (const p of pts)
      expect(Math.abs((res[`POINT (${p[0]} ${p[1]})`] as number) - windAt(p[0], p[1]))).toBeLessThan(0.06);
  });
});

describe('raster engine: polygons', () => {
  it('matches brute-force clipping for 320 random polygons (min, mean, max)', async () => {
    const layer = layerOf('temp', 'mean');
    const shapes = randomShapes(
      { west: g.west, north: g.north, resX: g.res, resY: g.res, width: g.width, height: g.height, tile: g.tile },
      320,
      2024,
    );
    const methods: AggregationMethod[] = ['min', 'mean', 'max'];
    const rand = rng(3);
    let nonNull = 0;
    for (let i = 0; i < shapes.length; i += 5) {
      const batch = shapes.slice(i, i + 5);
      const method = methods[(i / 5) % 3]!;
      const d0 = Math.floor(rand() * 362);
      const range: [string, string] = [day(d0), day(d0 + 2)];
      const geoms: ParsedGeometry[] = batch.map((s, k) => ({
        kind: 'polygon',
        key: toWkt(s.polygons),
        index: k,
        polygons: s.polygons,
        multi: s.polygons.length > 1,
      }));
      const res = await (i % 2 === 0 ? httpEngine : fileEngine).query(query(layer, geoms, range, method));
      expect(Object.keys(res)).toEqual(geoms.map((x) => x.key));
      for (const [k, s] of batch.entries()) {
        const values = res[geoms[k]!.key] as Record<string, number | null>;
        for (const [key, v] of Object.entries(values)) {
          const [r, b] = await bandOf(layer, key);
          const want = toUnits(layer, oracleStat(r, b, oracleCoverage(s.polygons, r, COVERAGE_EPSILON), method));
          const label = `${s.kind} ${method} ${key}: ${geoms[k]!.key}`;
          if (want === null) {
            expect(v, label).toBeNull();
          } else {
            nonNull++;
            expect(v, label).not.toBeNull();
            // Means are rounded to 1e-4 in the response; min and max are stored values.
            expect(Math.abs(v! - want), label).toBeLessThan(method === 'mean' ? 6e-5 : 1e-9);
          }
        }
      }
    }
    expect(nonNull).toBeGreaterThan(600);
  });

  it('gives null for polygons wholly in nodata or outside the grid, and skips nodata pixels', async () => {
    const layer = layerOf('temp', 'mean');
    const at = (c: number, r: number): Position => [g.west + c * g.res, g.north - r * g.res];
    const square = (c0: number, r0: number, c1: number, r1: number): Position[] => [
      at(c0, r1),
      at(c1, r1),
      at(c1, r0),
      at(c0, r0),
      at(c0, r1),
    ];
    const geoms: ParsedGeometry[] = [
      { kind: 'polygon', key: 'in the nodata disk', index: 0, multi: false, polygons: [[square(38, 28, 42, 32)]] },
      { kind: 'polygon', key: 'west of the grid', index: 1, multi: false, polygons: [[square(-9, 5, -2, 9)]] },
      {
        kind: 'polygon',
        key: 'sparse (all-nodata) tile',
        index: 2,
        multi: false,
        polygons: [[square(96.5, 64.5, 99.5, 69.5)]],
      },
      {
        kind: 'polygon',
        key: 'half in the west nodata strip',
        index: 3,
        multi: false,
        polygons: [[square(1, 10, 5, 12)]],
      },
    ];
    for (const method of ['min', 'mean', 'max'] as const) {
      const res = await httpEngine.query(query(layer, geoms, ['2023-06-01', '2023-06-01'], method));
      expect(res['in the nodata disk']).toEqual({ '2023-06-01': null });
      expect(res['west of the grid']).toEqual({ '2023-06-01': null });
      expect(res['sparse (all-nodata) tile']).toEqual({ '2023-06-01': null });
      const [r, b] = await bandOf(layer, '2023-06-01');
      const want = toUnits(
        layer,
        oracleStat(
          r,
          b,
          oracleCoverage(geoms[3]!.kind === 'polygon' ? geoms[3]!.polygons : [], r, COVERAGE_EPSILON),
          method,
        ),
      )!;
      expect((res['half in the west nodata strip'] as Record<string, number>)['2023-06-01']).toBeCloseTo(want, 4);
    }
  });
});

describe('raster engine: errors', () => {
  it('says which dates a layer holds when asked for others', async () => {
    const layer = layerOf('temp', 'mean');
    const err = await httpEngine
      .query(query(layer, [point([18.5, -33.5], 0)], ['2022-12-30', '2023-01-02'], null))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClimateQueryError);
    expect((err as ClimateQueryError).code).toBe('invalid_date_range');
    expect((err as ClimateQueryError).field).toBe('/startDate');
    expect((err as ClimateQueryError).message).toContain('holds dates 2023-01-01 to 2023-12-31');
  });

  it('reports a layer the dataset lacks as unknown_data_type', async () => {
    const q: RasterQuery = {
      ...query(layerOf('gdd', 'apples'), [point([18.5, -33.5], 0)], ['2020', '2020'], null),
      subDataType: 'citrus',
    };
    await expect(httpEngine.query(q)).rejects.toMatchObject({ code: 'unknown_data_type' });
    await expect(httpEngine.query({ ...q, dataType: 'frost', subDataType: '-' })).rejects.toMatchObject({
      code: 'unknown_data_type',
      field: '/dataType',
    });
  });

  it('honours an AbortSignal before and between reads', async () => {
    const layer = layerOf('temp', 'mean');
    const q = query(layer, [point([18.5, -33.5], 0), point([19.7, -34.2], 1)], ['2023-03-01', '2023-03-31'], null);
    const before = new AbortController();
    before.abort();
    await expect(httpEngine.query(q, before.signal)).rejects.toMatchObject({ code: 'aborted' });

    // Abort while the first read is on the wire: the query stops with `aborted`, not a partial answer.
    const during = new AbortController();
    let reads = 0;
    const slow = (url: string): ByteSource => {
      const inner = openLocalOrHttpSource(url);
      return {
        url,
        async read(offset, length, signal) {
          if (++reads === 2) during.abort();
          await new Promise((r) => setTimeout(r, 20));
          return inner.read(offset, length, signal);
        },
        close: () => inner.close?.() ?? Promise.resolve(),
      };
    };
    const engine = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url, { openSource: slow }) });
    await expect(engine.query(q, during.signal)).rejects.toMatchObject({ code: 'aborted' });
    // The engine is still usable afterwards.
    const ok = await engine.query(q);
    expect(Object.keys(ok)).toHaveLength(2);
    await engine.close();

    // Two queries share a file's opening; the one that gives up must not fail the other.
    const shared = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url, { openSource: slow }) });
    const quitter = new AbortController();
    const a = shared.query(q, quitter.signal);
    const b = shared.query(q);
    setTimeout(() => quitter.abort(), 5);
    await expect(a).rejects.toMatchObject({ code: 'aborted' });
    expect(await b).toEqual(ok);
    await shared.close();
  });

  it('reports a missing file as dataset_unavailable, a missing store as dataset_changed', async () => {
    const broken = {
      ...fx.catalog,
      rasters: fx.catalog.rasters.map((l) => ({
        ...l,
        files: l.files.map((f) => ({ ...f, path: `missing/${f.path}` })),
      })),
    };
    const engine = createRasterEngine({ catalog: broken, dataset: urlLocation(server.url) });
    await expect(
      engine.query(query(layerOf('temp', 'max'), [point([18.5, -33.5], 0)], ['2023-12-20', '2023-12-20'], null)),
    ).rejects.toMatchObject({
      code: 'dataset_unavailable',
    });
    // A zarr store that is not on the host: the catalog no longer matches it (a redeploy drops old
    // stores, whose names carry their build's id), which the engine answers by reading catalog.json
    // again once (engine.ts); a dataset copied in part stays 409, naming the object and what to do.
    const missing = await engine
      .query(query(layerOf('temp', 'mean'), [point([18.5, -33.5], 0)], ['2023-01-01', '2023-01-01'], null))
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({
      code: 'dataset_changed',
      message: expect.stringMatching(/missing\/rasters\/temp-mean\/.*copied in part/),
    });
    await engine.close();
  });
});
