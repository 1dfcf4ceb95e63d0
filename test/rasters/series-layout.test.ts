/**
 * The `series` layout (src/rasters/raster-layout.ts) against the `map`
 * layout it replaces for long stacks: the same input built both ways must
 * answer every point, polygon and map preview identically, on a grid whose
 * edges cut blocks and tiles (100 × 70 px), and a catalog that says one
 * layout over files of the other is refused, not misread.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError } from '../../src/builder/build-error.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { parseRange } from '../../src/contract/periods.ts';
import type { AggregationMethod } from '../../src/contract/raster-layers.ts';
import type { RasterQuery } from '../../src/contract/types.ts';
import type { ParsedGeometry, Position } from '../../src/contract/wkt.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { fileLocation } from '../../src/node/file-location.ts';
import { createRasterEngine } from '../../src/rasters/raster-engine.ts';
import { randomShapes, rng, toWkt } from '../helpers/random-shapes.ts';
import { buildRasterFixture, FIXTURE_GRID, type RasterFixture } from '../helpers/raster-fixture.ts';

let fx: RasterFixture;
let work: string;
let mapDir: string;
let seriesCatalog: Catalog;
let mapCatalog: Catalog;
const g = FIXTURE_GRID;

beforeAll(async () => {
  fx = await buildRasterFixture();
  work = await mkdtemp(join(tmpdir(), 'cq-series-'));
  mapDir = join(work, 'map');
  // The same 365-band input as the fixture's temp/mean, written as a map with 16 px tiles.
  await buildRasterLayer({
    dir: mapDir,
    datasetName: 'map',
    dataType: 'temp',
    subDataType: 'mean',
    inputs: [join(fx.inputs, 'tmean-2023.tif')],
    layout: 'map',
  });
  mapCatalog = JSON.parse(await readFile(join(mapDir, 'catalog.json'), 'utf8'));
  seriesCatalog = fx.catalog;
}, 120_000);
afterAll(async () => {
  await fx?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

const day = (d: number) => new Date(Date.UTC(2023, 0, 1 + d)).toISOString().slice(0, 10);

function query(geometries: ParsedGeometry[], from: string, to: string, method: AggregationMethod | null): RasterQuery {
  return {
    endpoint: method ? 'polygon' : 'point',
    dataType: 'temp',
    subDataType: 'mean',
    extent: seriesCatalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'mean')!.extent,
    range: parseRange('daily', from, to),
    geometries,
    aggregationMethod: method,
  };
}

describe('series layout', () => {
  it('is what the build chose for the 365-band stack, and map is what was asked for', () => {
    const s = seriesCatalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'mean')!;
    const m = mapCatalog.rasters[0]!;
    expect(s.layout).toBe('series');
    expect(s.tileSize).toEqual([8, 8]);
    expect(m.layout).toBeUndefined();
    expect(m.tileSize).toEqual([16, 16]);
    expect([s.width, s.height, s.bbox, s.scale]).toEqual([m.width, m.height, m.bbox, m.scale]);
  });

  it('answers 300 points and 90 polygons exactly as the map layout does', async () => {
    const series = createRasterEngine({ catalog: seriesCatalog, dataset: fileLocation(fx.dataset) });
    const map = createRasterEngine({ catalog: mapCatalog, dataset: fileLocation(mapDir) });
    try {
      const rand = rng(77);
      // Points anywhere on the grid and a little beyond it, so edge blocks and outside both count.
      const points: Position[] = Array.from({ length: 300 }, () => [
        g.west - 0.05 + rand() * (g.width * g.res + 0.1),
        g.north + 0.05 - rand() * (g.height * g.res + 0.1),
      ]);
      let numbers = 0;
      for (let i = 0; i < points.length; i += 30) {
        const geoms: ParsedGeometry[] = points
          .slice(i, i + 30)
          .map((p, k) => ({ kind: 'point', key: `POINT (${p[0]} ${p[1]})`, index: k, position: p }));
        const q = query(geoms, '2023-01-01', '2023-12-31', null);
        const a = await series.query(q);
        expect(a).toEqual(await map.query(q));
        for (const v of Object.values(a)) numbers += Object.values(v as object).filter((x) => x !== null).length;
      }
      expect(numbers).toBeGreaterThan(200 * 365);

      const shapes = randomShapes(
        { west: g.west, north: g.north, resX: g.res, resY: g.res, width: g.width, height: g.height, tile: 16 },
        90,
        7,
      );
      const methods: AggregationMethod[] = ['min', 'mean', 'max'];
      for (let i = 0; i < shapes.length; i += 6) {
        const geoms: ParsedGeometry[] = shapes.slice(i, i + 6).map((s, k) => ({
          kind: 'polygon',
          key: toWkt(s.polygons),
          index: k,
          polygons: s.polygons,
          multi: s.polygons.length > 1,
        }));
        const d0 = Math.floor(rand() * 340);
        const q = query(geoms, day(d0), day(d0 + 20), methods[(i / 6) % 3]!);
        expect(await series.query(q)).toEqual(await map.query(q));
      }
    } finally {
      await series.close();
      await map.close();
    }
  });

  it('gives the same map preview of a date', async () => {
    const series = createRasterEngine({ catalog: seriesCatalog, dataset: fileLocation(fx.dataset) });
    const map = createRasterEngine({ catalog: mapCatalog, dataset: fileLocation(mapDir) });
    try {
      for (const period of ['2023-01-01', '2023-07-15', '2023-12-31']) {
        const req = { dataType: 'temp', subDataType: 'mean', period };
        const a = await series.grid(req);
        const b = await map.grid(req);
        expect(Array.from(a.values)).toEqual(Array.from(b.values));
        expect([a.min, a.max]).toEqual([b.min, b.max]);
        expect(a.values.some((v) => Number.isNaN(v))).toBe(true);
      }
    } finally {
      await series.close();
      await map.close();
    }
  });

  it('refuses a catalog whose layout is not the files’ own', async () => {
    // The map files, described as a series layer: the reader sees the shape is wrong and says so.
    const lying: Catalog = structuredClone(mapCatalog);
    lying.rasters[0]!.layout = 'series';
    lying.rasters[0]!.tileSize = [8, 8];
    const engine = createRasterEngine({ catalog: lying, dataset: fileLocation(mapDir) });
    try {
      const p: Position = [g.west + 0.5, g.north - 0.5];
      const err = await engine
        .query(query([{ kind: 'point', key: 'P', index: 0, position: p }], '2023-01-01', '2023-01-02', null))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClimateQueryError);
      expect((err as ClimateQueryError).code).toBe('dataset_unavailable');
      expect((err as Error).message).toMatch(/not the series layout catalog\.json records.*rebuild the layer/);
    } finally {
      await engine.close();
    }
  });

  it('refuses a layout it does not know and a tile size for a series layout', async () => {
    const base = {
      dir: join(work, 'refused'),
      dataType: 'temp',
      subDataType: 'mean',
      inputs: [join(fx.inputs, 'tmean-2023.tif')],
    };
    for (const [extra, field] of [
      [{ layout: 'columns' as 'map' }, 'layout'],
      [{ layout: 'series' as const, tileSize: 16 }, 'tileSize'],
    ] as const) {
      const err = await buildRasterLayer({ ...base, ...extra }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BuildError);
      expect((err as BuildError & { option?: string }).option).toBe(field);
    }
  });
});
