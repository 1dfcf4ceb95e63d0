/**
 * What a catalog claims of a grid bounds the work of one query: a grid of 10⁶ × 10⁶ px is refused
 * as the catalog is read, a 2 km² field on a grid of 0.1 m pixels is refused by the pixels it
 * covers, a preview of a claimed 16,000² grid is refused before anything is allocated, and
 * thousands of previews at once of the clean demo wait their turn within the memory budget.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { MAX_POLYGON_CELLS } from '../../src/rasters/coverage.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-claims-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A copy of the demo whose `dataType/subDataType` layer claims what `claim` sets. */
async function claiming(name: string, dataType: string, subDataType: string, claim: Partial<RasterLayerEntry>) {
  const dir = join(root, name);
  await cp(demo, dir, { recursive: true });
  const c = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
  const l = c.rasters.find((x) => x.dataType === dataType && x.subDataType === subDataType)!;
  Object.assign(l, claim);
  await writeFile(join(dir, 'catalog.json'), JSON.stringify(c));
  return dir;
}

/** A square of about 1.9 km² around (lon, lat). */
const field = (lon: number, lat: number) => {
  const h = 0.0065;
  return `POLYGON ((${lon - h} ${lat - h}, ${lon + h} ${lat - h}, ${lon + h} ${lat + h}, ${lon - h} ${lat + h}, ${lon - h} ${lat - h}))`;
};

describe('grid claims', () => {
  it('a layer claiming 10⁶ × 10⁶ px is refused as the catalog is read, naming the field', async () => {
    const dir = await claiming('million', 'gdd', 'apples', {
      width: 1_000_000,
      height: 1_000_000,
      resolution: [1e-6, 1e-6],
      bbox: [18.8, -34, 19.8, -33],
    });
    const engine = createNodeEngine(dir);
    try {
      const t0 = Date.now();
      const r = await engine.handle({
        method: 'POST',
        path: '/api/polygon/',
        body: JSON.stringify({
          wkts: field(18.9, -33.9),
          dataType: 'gdd',
          options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc', aggregationMethod: 'mean' },
          startDate: '2020',
          endDate: '2020',
        }),
      });
      expect(r.status).toBe(503);
      expect(JSON.stringify(r.body)).toMatch(/width × height is 1000000000000, which must be at most/);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await engine.close();
    }
  });

  it('a field on a grid of 0.1 m pixels is refused by the pixels it covers, naming the item', async () => {
    const [west, north] = [18.86, -33.9];
    const dir = await claiming('fine', 'gdd', 'apples', {
      width: 40_000,
      height: 40_000,
      resolution: [1e-6, 1e-6],
      bbox: [west, north - 0.04, west + 0.04, north],
    });
    const engine = createNodeEngine(dir);
    const before = process.memoryUsage().rss;
    try {
      const r = await engine.handle({
        method: 'POST',
        path: '/api/polygon/',
        body: JSON.stringify({
          wkts: field(west + 0.02, north - 0.02),
          dataType: 'gdd',
          options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc', aggregationMethod: 'mean' },
          startDate: '2020',
          endDate: '2020',
        }),
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        error: { code: 'limit_exceeded', field: '/wkts/0', params: { of: 'pixels', max: MAX_POLYGON_CELLS, index: 0 } },
      });
      // Refused before the coverage of 1.7 × 10⁸ cells was allocated (1.3 GB).
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    } finally {
      await engine.close();
    }
  });

  it('a preview of a claimed 16,000² grid is refused before anything is read', async () => {
    const dir = await claiming('preview', 'windspeed', '20', {
      width: 16_000,
      height: 16_000,
      resolution: [0.001, 0.001],
      bbox: [16, -35, 32, -19],
    });
    const engine = createNodeEngine(dir);
    try {
      await expect(engine.layerGrid({ dataType: 'windspeed', subDataType: '20', period: '' })).rejects.toMatchObject({
        code: 'dataset_unavailable',
        message: expect.stringMatching(/would hold 256,000,000 pixels, more than the 4,194,304 one preview may/),
      });
    } finally {
      await engine.close();
    }
  });

  it('10,000 previews at once of the clean demo, over every month it holds, all answer right within the memory budget', async () => {
    const engine = createNodeEngine(demo);
    try {
      const frost = (await engine.catalog()).rasters.find((l) => l.dataType === 'frost')!;
      const periods = frost.files.flatMap((f) => f.periods);
      const sum = (v: Float32Array) => v.reduce((s, x) => (Number.isNaN(x) ? s : s + x), 0);
      const expected = new Map<string, number>();
      for (const period of periods)
        expected.set(period, sum((await engine.layerGrid({ dataType: 'frost', subDataType: '-', period })).values));
      // Closed, so the 10,000 start from cold files and caches.
      await engine.close();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      // Each answer is checked and dropped as it comes, as a page does with the map it drew.
      const right = await Promise.all(
        Array.from({ length: 10_000 }, (_, i) => {
          const period = periods[i % periods.length]!;
          return engine
            .layerGrid({ dataType: 'frost', subDataType: '-', period })
            .then((g) => sum(g.values) === expected.get(period));
        }),
      ).finally(() => clearInterval(sampler));
      expect(right.every(Boolean)).toBe(true);
      // Was 2.8 GB: every preview built at once.
      expect(peak - before).toBeLessThan(400 * 1024 * 1024);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
