// Removing a layer or stations changes only that: on a copy of
// the demo dataset, `layers remove` and `stations remove` take out what they
// name, delete its files, and every other answer stays byte for byte what it
// was; a name that is not there removes nothing and says what is there.
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { cli } from '../helpers/cli.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
let dir: string;
let data: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-remove-'));
  data = join(dir, 'demo');
  await cp(demo, data, { recursive: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const catalogOf = async (): Promise<Catalog> => (await catalogJson(join(data, 'catalog.json'))) as Catalog;
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** Answers of the four endpoints from the dataset as it is now, as JSON text (errors as their code). */
async function answers(): Promise<Record<string, string>> {
  const engine = createNodeEngine(data);
  const ask = (name: string, p: Promise<unknown>) =>
    p.then(
      (a) => [name, JSON.stringify(a)],
      (e: { code?: string }) => [name, `error ${e.code}`],
    );
  try {
    return Object.fromEntries(
      await Promise.all([
        ask(
          'rain',
          engine.query('point', {
            wkts: 'POINT (19.3 -33.4)',
            dataType: 'rain',
            options: { subDataType: '-', timeScale: 'monthly', dataExtent: 'sa' },
            startDate: '2024-01',
            endDate: '2024-06',
          }),
        ),
        ask(
          'tmax',
          engine.query('polygon', {
            wkts: 'POLYGON ((19.30 -33.40, 19.31 -33.40, 19.31 -33.41, 19.30 -33.41, 19.30 -33.40))',
            dataType: 'temp',
            options: { subDataType: 'max', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'mean' },
            startDate: '2024-01-01',
            endDate: '2024-01-05',
          }),
        ),
        ask(
          'near',
          engine.query('nearest-station', {
            wkts: 'POINT (18.97 -33.72);POINT (20.0 -33.0)',
            dataTypes: ['temperature_mean'],
            options: { timeScale: 'daily' },
            startDate: '2024-01-01',
            endDate: '2024-01-03',
          }),
        ),
        ask(
          'poly',
          engine.query('poly-aggregate', {
            wkts: 'POLYGON ((18.5 -34.2, 19.5 -34.2, 19.5 -33.2, 18.5 -33.2, 18.5 -34.2))',
            dataTypes: ['rain_sum'],
            options: { timeScale: 'monthly' },
            startDate: '2024-01',
            endDate: '2024-02',
          }),
        ),
      ]),
    );
  } finally {
    await engine.close();
  }
}

describe('climate-query layers remove', () => {
  it('takes out one layer and its files; every other answer is unchanged; a missing layer is named with what is there', async () => {
    const before = await answers();
    const c0 = await catalogOf();
    const layer = c0.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'max')!;
    const onExtents = c0.rasters.filter((l) => l.dataType === 'temp' && l.subDataType === 'max').map((l) => l.extent);
    const args = [
      'layers',
      'remove',
      'temp/max',
      '--data',
      data,
      ...(onExtents.length > 1 ? ['--extent', layer.extent] : []),
    ];
    if (onExtents.length > 1) {
      const ambiguous = await cli(['layers', 'remove', 'temp/max', '--data', data]);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toContain('say which with --extent');
    }
    const r = await cli(args);
    expect(r.stderr).toContain('Removed layer temp/max');
    expect(r.code).toBe(0);
    const c1 = await catalogOf();
    expect(c1.rasters.length).toBe(c0.rasters.length - 1);
    expect(c1.rasters.some((l) => l.dataType === 'temp' && l.subDataType === 'max' && l.extent === layer.extent)).toBe(
      false,
    );
    for (const f of layer.files) expect(await exists(join(data, f.path)), f.path).toBe(false);
    // The catalog's file list names only files that are there, with their sizes.
    for (const f of c1.files) expect((await stat(join(data, f.path))).size, f.path).toBe(f.bytes);
    expect(c1.files.some((f) => layer.files.some((g) => g.path === f.path))).toBe(false);
    expect(c1.stations).toEqual(c0.stations);

    const after = await answers();
    // Asked again, the removed layer is refused as a 4xx (a contract family the dataset no longer holds).
    expect(before.tmax).not.toMatch(/^error/);
    expect(after.tmax).toMatch(/^error (invalid_field|unknown_data_type)$/);
    expect({ ...after, tmax: '' }).toEqual({ ...before, tmax: '' });

    const missing = await cli(['layers', 'remove', 'temp/max', '--data', data, '--extent', layer.extent]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has no layer temp\/max --extent \w+; it has .*rain/);
    expect(await catalogOf()).toEqual(c1);
  }, 300_000);
});

describe('climate-query stations remove', () => {
  it('takes out the named stations, re-indexes, and leaves every other station as it was; an unknown id removes nothing', async () => {
    const engine = createNodeEngine(data);
    const paarl = 'POINT (18.967 -33.717)';
    const far = 'POINT (20.0 -33.0)';
    const q = {
      wkts: `${paarl};${far}`,
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-03',
    };
    const first = (await engine.query('nearest-station', q)) as Record<
      string,
      { metadata: { station_lat: number; station_lon: number; distance_from_point_m: number } }
    >;
    await engine.close();
    expect(first[paarl]!.metadata.distance_from_point_m).toBeLessThan(100);
    const c0 = await catalogOf();

    const unknown = await cli(['stations', 'remove', '687130-99999', 'NOPE-1', '--data', data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no station "NOPE-1"; nothing was removed');
    expect(await catalogOf()).toEqual(c0);
    expect((await cli(['stations', 'remove', '--data', data])).code).toBe(2);

    const r = await cli(['stations', 'remove', '687130-99999', '--data', data]);
    expect(r.stderr).toContain('Removed 1 station(s): 687130-99999');
    expect(r.code).toBe(0);
    const c1 = await catalogOf();
    expect(c1.stations!.count).toBe(c0.stations!.count - 1);
    expect(c1.stations!.utcOffset).toBe(c0.stations!.utcOffset);
    expect(c1.rasters).toEqual(c0.rasters);
    expect(await exists(join(data, 'stations', 'hourly', 'station_id=687130-99999'))).toBe(false);

    const again = createNodeEngine(data);
    try {
      const second = (await again.query('nearest-station', q)) as typeof first;
      // Paarl is gone: the point is answered by another station, further away; the far point is unchanged.
      expect(second[paarl]!.metadata.distance_from_point_m).toBeGreaterThan(1000);
      expect(second[far]).toEqual(first[far]);
    } finally {
      await again.close();
    }

    const all = await cli(['stations', 'remove', '--all', '--data', data]);
    expect(all.code).toBe(0);
    expect((await catalogOf()).stations).toBeNull();
    expect(await exists(join(data, 'stations'))).toBe(false);
    expect((await catalogOf()).rasters).toEqual(c0.rasters);
  }, 300_000);
});

describe('climate-query index on a dataset whose catalog names a missing file', () => {
  it('names the file and what to do, exit 2, no stack (it was a raw ENOENT)', async () => {
    const copy = join(dir, 'missing');
    await cp(demo, copy, { recursive: true });
    const before = await readFile(join(copy, 'catalog.json'), 'utf8');
    const gone = (JSON.parse(before) as Catalog).rasters[0]!.files[0]!.path;
    await rm(join(copy, gone));
    const r = await cli(['index', copy]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`lists ${gone} (raster), which is missing there`);
    expect(r.stderr).toContain('climate-query layers remove');
    expect(r.stderr).not.toMatch(/\n\s+at |ENOENT/);
    expect(await readFile(join(copy, 'catalog.json'), 'utf8')).toBe(before);
  }, 300_000);
});
