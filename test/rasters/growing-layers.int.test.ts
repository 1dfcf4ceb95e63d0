/**
 * A layer of one's own takes next year, whatever that year holds: a year whose values the layer's
 * storage step cannot hold in Int16 is stored at a step of its own (reported), `--scale` asked for
 * when adding a year is honoured, and the years built keep their files and answers. Each year's
 * answers equal the values the inputs were written with (the generating function) and GDAL's read
 * of the built file, at that file's own step.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { type Catalog, fileStep, type RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { layerText } from '../../src/node/layer-text.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { gdalPixel } from '../helpers/gdal-read.ts';
import { daysOfYear, writeGridInput } from '../helpers/grid-inputs.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.05, width: 20, height: 12 };
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-growing-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const at = (c: number, r: number) => `POINT (${G.west + (c + 0.5) * G.res} ${G.north - (r + 0.5) * G.res})`;
const readCatalog = async (dir: string) => (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
const months = (y: number) => Array.from({ length: 12 }, (_, m) => `${y}-${String(m + 1).padStart(2, '0')}`);

async function pointAnswer(dir: string, body: object): Promise<Record<string, number | null>> {
  const engine = createNodeEngine(dir);
  try {
    const res = await engine.handle({ method: 'POST', path: '/api/point/', body: JSON.stringify(body) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return Object.values(res.body as Record<string, Record<string, number | null>>)[0]!;
  } finally {
    await engine.close();
  }
}

describe('a monthly rainfall layer of one’s own, a dry year first', () => {
  // Dry 2023 reaches 18 mm (step 0.001 holds ±32.767); wet 2024 reaches 38 mm; 2025 asks --scale 0.1.
  const rain = (y: number) => (c: number, r: number, b: number) =>
    (y === 2023 ? 18 : 38) * (0.2 + (0.8 * ((c * 7 + r * 3 + b * 5) % 11)) / 10) + (y === 2025 ? 100 : 0);
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = join(root, 'rain');
    for (const y of [2023, 2024, 2025]) await writeGridInput(join(root, `rain${y}.tif`), G, months(y), rain(y));
    const build = (y: number, scale?: number) =>
      buildRasterLayer({
        dir,
        dataType: 'rainfall',
        subDataType: 'monthly',
        unit: 'mm',
        timeScale: 'monthly',
        extent: 'tc',
        inputs: [join(root, `rain${y}.tif`)],
        ...(scale ? { scale } : {}),
        log: (line: string) => logs.push(line),
      });
    await build(2023);
    await build(2024);
    await build(2025, 0.1);
  }, 300_000);

  it('every year is held, each file at the step that holds it, the layer at the coarsest', async () => {
    const layer = (await readCatalog(dir)).rasters[0]!;
    const steps = layer.files.map((f) => [f.periods[0], fileStep(layer, f).scale]);
    expect(steps).toEqual([
      ['2023-01-01', 0.001],
      ['2024-01-01', 0.01],
      ['2025-01-01', 0.1],
    ]);
    expect(layer.scale).toBe(0.1);
    // `climate-query layers` names the files at a step of their own.
    expect(layerText(layer)).toMatch(/own steps: +2023-01-01… × 0\.001 \+ 0; 2024-01-01… × 0\.01 \+ 0\n/);
    expect(logs.join('\n')).toMatch(
      /spans .* to 3[0-9.]+, beyond what the layer's storage step 0\.001 holds in Int16; these files are stored at step 0\.01/,
    );
  });

  it('each year answers the values its input was written with, and what GDAL reads of its file', async () => {
    const layer: RasterLayerEntry = (await readCatalog(dir)).rasters[0]!;
    for (const [c, r] of [
      [3, 2],
      [17, 9],
    ] as const) {
      const got = await pointAnswer(dir, {
        wkts: at(c, r),
        dataType: 'rainfall',
        options: { subDataType: 'monthly', timeScale: 'monthly', dataExtent: 'tc' },
        startDate: '2023-01',
        endDate: '2025-12',
      });
      for (const y of [2023, 2024, 2025]) {
        const f = layer.files.find((x) => x.periods[0] === `${y}-01-01`)!;
        const { scale } = fileStep(layer, f);
        for (const b of [0, 6, 11]) {
          const key = `${y}-${String(b + 1).padStart(2, '0')}-01`;
          expect(got[key], `${key} at ${c},${r}`).toBeCloseTo(rain(y)(c, r, b), Math.max(0, -Math.log10(scale) - 1));
          expect(Math.abs(got[key]! - rain(y)(c, r, b))).toBeLessThanOrEqual(scale / 2 + 1e-9);
          const gdal = await gdalPixel(
            join(dir, f.path),
            b + 1,
            G.west + (c + 0.5) * G.res,
            G.north - (r + 0.5) * G.res,
          );
          expect(got[key]).toBeCloseTo(gdal!, 9);
        }
      }
    }
  });
});

describe('a daily temperature layer of one’s own, begun in winter', () => {
  // Winter 2023 stays under 21 °C (step 0.001); a 2024 summer reaches 41 °C.
  const tmax = (y: number) => (c: number, r: number, b: number) =>
    y === 2023 ? 12 + 8 * Math.sin((b + c) / 40) + 0.01 * r : 26 + 15 * Math.sin((b + r) / 60) - 0.02 * c;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = join(root, 'tmax');
    for (const y of [2023, 2024]) await writeGridInput(join(root, `tmax${y}.tif`), G, daysOfYear(y), tmax(y));
    for (const y of [2023, 2024]) {
      await buildRasterLayer({
        dir,
        dataType: 'tx',
        unit: '°C',
        timeScale: 'daily',
        extent: 'tc',
        inputs: [join(root, `tmax${y}.tif`)],
        log: (line: string) => logs.push(line),
      });
    }
  }, 300_000);

  it('the summer year is stored at its own step in a store of its own; both years answer their inputs', async () => {
    const layer = (await readCatalog(dir)).rasters[0]!;
    expect(layer.layout).toBe('zarr');
    expect(layer.files.map((f) => fileStep(layer, f).scale)).toEqual([0.001, 0.01]);
    expect(logs.join('\n')).toMatch(
      /beyond what the layer's storage step 0\.001 holds in Int16; these files are stored at step 0\.01/,
    );
    const got = await pointAnswer(dir, {
      wkts: at(5, 4),
      dataType: 'tx',
      options: { timeScale: 'daily', dataExtent: 'tc' },
      startDate: '2023-01-01',
      endDate: '2024-12-31',
    });
    const days = [
      ...daysOfYear(2023).map((d, b) => [d, tmax(2023)(5, 4, b)]),
      ...daysOfYear(2024).map((d, b) => [d, tmax(2024)(5, 4, b)]),
    ] as Array<[string, number]>;
    for (const [d, want] of days) {
      const step = d < '2024' ? 0.001 : 0.01;
      expect(Math.abs(got[d]! - want), d).toBeLessThanOrEqual(step / 2 + 1e-9);
    }
    // GDAL (native, on the store) reads the summer store's 200th day as the engine answers it.
    const f = layer.files[1]!;
    const gdal = await gdalPixel(join(dir, f.path), 200, G.west + 5.5 * G.res, G.north - 4.5 * G.res);
    expect(got[daysOfYear(2024)[199]!]).toBeCloseTo(gdal!, 9);
  });
});
