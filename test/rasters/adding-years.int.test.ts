/**
 * A dataset grows a year at a time and from several machines, and never
 * shrinks by accident: a build of one year adds it to the layer; a year is
 * rebuilt only with at least the dates it had; files that could not sit
 * together are refused before anything changes; `layers merge` adds the
 * years another folder holds; a damaged catalog.json is refused, not taken
 * for an empty one; and the answers over the grown layer are the inputs'.
 */

import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileGroup, mergeLayer } from '../../src/builder/dataset/layer-merge.ts';
import { mergeDatasets } from '../../src/builder/dataset/dataset-merge.ts';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli as runCli } from '../helpers/cli.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.02, width: 40, height: 24 };
const daysOf = (y: number, n?: number) => {
  const out: string[] = [];
  for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return n === undefined ? out : out.slice(0, n);
};
const value = (c: number, r: number, day: number) => 15 + 0.1 * c - 0.2 * r + 5 * Math.sin(day / 58);

let root: string;
const input = (y: number, n?: number) => join(root, `t_${y}${n ? `_${n}` : ''}.tif`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-years-'));
  for (const [y, n] of [
    [2021, undefined],
    [2022, undefined],
    [2023, undefined],
    [2022, 100],
  ] as const) {
    const dates = daysOf(y, n);
    await writeInputGeoTiff(input(y, n), {
      width: G.width,
      height: G.height,
      geoTransform: [G.west, G.res, 0, G.north, 0, -G.res],
      bands: dates.length,
      descriptions: dates,
      fill: (b, out) => {
        const day = Math.round(Date.parse(dates[b]!) / 86_400_000);
        for (let r = 0; r < G.height; r++) for (let c = 0; c < G.width; c++) out[r * G.width + c] = value(c, r, day);
      },
    });
  }
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const catalogOf = async (dir: string) => (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
const layerIn = async (dir: string) => (await catalogOf(dir)).rasters.find((l) => l.dataType === 'temp')!;
const build = (dir: string, inputs: string[], extra: object = {}) =>
  buildRasterLayer({ dir, dataType: 'temp', subDataType: 'mean', extent: 'tc', inputs, ...extra });

/** The engine's value at pixel (c, r) on `date`, from the dataset folder. */
async function at(dir: string, c: number, r: number, date: string): Promise<number | null> {
  const engine = createNodeEngine(dir);
  try {
    const res = await engine.query('point', {
      wkts: `POINT (${G.west + (c + 0.5) * G.res} ${G.north - (r + 0.5) * G.res})`,
      dataType: 'temp',
      options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
      startDate: date,
      endDate: date,
    });
    return (Object.values(res)[0] as Record<string, number | null>)[date] ?? null;
  } finally {
    await engine.close();
  }
}

describe('a layer grows a year at a time', () => {
  it('file groups: a year (map or store), else the file', () => {
    expect(fileGroup('rasters/temp-mean/2024-3f9a1c2e.zarr')).toBe('2024');
    expect(fileGroup('rasters/frost/2024.tif')).toBe('2024');
    expect(fileGroup('rasters/gdd-apples/years.tif')).toBe('years.tif');
    // From this version on a map file carries its build's id too; it is of the same group.
    expect(fileGroup('rasters/gdd-apples/years-3f9a1c2e.tif')).toBe('years.tif');
    expect(fileGroup('rasters/frost/2024-3f9a1c2e.tif')).toBe('2024');
  });

  it('adds a year, keeps the others, and answers from both', async () => {
    const dir = join(root, 'grow');
    await build(dir, [input(2021)]);
    const first = await layerIn(dir);
    await build(dir, [input(2022)]);
    const grown = await layerIn(dir);
    expect(grown.files.map((f) => f.periods[0])).toEqual(['2021-01-01', '2022-01-01']);
    expect(grown.files[0]).toEqual(first.files[0]);
    expect(existsSync(join(dir, first.files[0]!.path, '.zmetadata'))).toBe(true);
    const day = (d: string) => Math.round(Date.parse(d) / 86_400_000);
    for (const d of ['2021-03-04', '2022-11-30'])
      expect(await at(dir, 5, 7, d)).toBeCloseTo(Math.round(value(5, 7, day(d)) * 10) / 10, 6);
  });

  it('rebuilding a year replaces its store (a new name) and deletes the old one after the catalog names the new', async () => {
    const dir = join(root, 'grow');
    const before = await layerIn(dir);
    await build(dir, [input(2022)]);
    const after = await layerIn(dir);
    expect(after.files[0]).toEqual(before.files[0]);
    expect(after.files[1]!.path).not.toBe(before.files[1]!.path);
    expect(existsSync(join(dir, before.files[1]!.path))).toBe(false);
    const stores = await readdir(join(dir, 'rasters/temp-mean'));
    expect(stores.sort()).toEqual(after.files.map((f) => f.path.split('/').pop()).sort());
  });

  it('refuses a year rebuilt with fewer dates than it holds, naming them, and changes nothing', async () => {
    const dir = join(root, 'grow');
    const catalog = await readFile(join(dir, 'catalog.json'), 'utf8');
    await expect(build(dir, [input(2022, 100)])).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(
        /holds 365 dates in 2022; these inputs give 100, without 265 of them \(2022-04-11 … 2022-12-31\)/,
      ),
    });
    expect(await readFile(join(dir, 'catalog.json'), 'utf8')).toBe(catalog);
  });

  it('honours a --scale asked for an added year (its store keeps it, the others theirs); --replace starts over', async () => {
    const dir = join(root, 'grow');
    const kept = await at(dir, 9, 9, '2022-06-30');
    await build(dir, [input(2023)], { scale: 0.01 });
    const grown = await layerIn(dir);
    // The layer shows the coarsest step; the finer 2023 store records its own.
    expect(grown.scale).toBe(0.1);
    expect(grown.files.map((f) => [f.periods[0], f.scale])).toEqual([
      ['2021-01-01', undefined],
      ['2022-01-01', undefined],
      ['2023-01-01', 0.01],
    ]);
    expect(await at(dir, 9, 9, '2022-06-30')).toBe(kept);
    const day = Math.round(Date.parse('2023-06-30') / 86_400_000);
    expect(Math.abs((await at(dir, 9, 9, '2023-06-30'))! - value(9, 9, day))).toBeLessThanOrEqual(0.005 + 1e-9);
    await build(dir, [input(2023)], { scale: 0.01, replace: true });
    const l = await layerIn(dir);
    expect(l.scale).toBe(0.01);
    expect(l.files.map((f) => f.periods[0])).toEqual(['2023-01-01']);
    expect((await readdir(join(dir, 'rasters/temp-mean'))).length).toBe(1);
  });

  it('layers merge adds the years other folders hold; a conflicting one is refused before anything changes', async () => {
    const a = join(root, 'machine-a');
    const b = join(root, 'machine-b');
    const main = join(root, 'main');
    await build(a, [input(2021)]);
    await build(b, [input(2022), input(2023)]);
    await build(main, [input(2021)]);
    const cli = await runCli(['layers', 'merge', a, b, '--data', main]);
    expect(cli.code).toBe(0);
    expect(cli.stderr).toMatch(/temp\/mean \(tc\) from .*machine-b: added 2022, 2023/);
    const l = await layerIn(main);
    expect(l.files.map((f) => f.periods[0])).toEqual(['2021-01-01', '2022-01-01', '2023-01-01']);
    // 2021 came from machine A too (another build): it replaced main's own, whose store is gone.
    expect((await readdir(join(main, 'rasters/temp-mean'))).length).toBe(3);
    expect(await at(main, 9, 9, '2023-06-30')).not.toBeNull();

    // A source whose year sits on another grid cannot join main's layer.
    const odd = join(root, 'machine-c');
    await build(odd, [input(2023)], { grid: { bbox: [18, -33.48, 18.8, -33], resolution: 0.04 } });
    const catalog = await readFile(join(main, 'catalog.json'), 'utf8');
    const refused = await runCli(['layers', 'merge', odd, '--data', main]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/machine-c.*grid 40 × 24 \/ 20 × 12 px.*Nothing was merged/);
    expect(await readFile(join(main, 'catalog.json'), 'utf8')).toBe(catalog);
    await expect(mergeDatasets(main, [join(root, 'nothing-here')])).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a damaged catalog.json is refused with what to do, and the dataset keeps every layer', async () => {
    const dir = join(root, 'damaged');
    await cp(join(root, 'main'), dir, { recursive: true });
    const whole = await readFile(join(dir, 'catalog.json'), 'utf8');
    // What an interrupted in-place write left before catalogs were written by rename.
    await writeFile(join(dir, 'catalog.json'), whole.slice(0, Math.floor(whole.length / 2)));
    await expect(build(dir, [input(2023)])).rejects.toMatchObject({
      code: 'dataset_damaged',
      message: expect.stringMatching(/catalog\.json in .* is damaged: .*Restore it/),
    });
    const cli = await runCli([
      'build',
      '--out',
      dir,
      '--layer',
      'elev',
      '--unit',
      'm',
      '--time-scale',
      'daily',
      input(2021),
    ]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/damaged/);
    // Nothing was written: the cut catalog is as it was, and no layer folder appeared.
    expect((await readFile(join(dir, 'catalog.json'), 'utf8')).length).toBe(Math.floor(whole.length / 2));
    expect(existsSync(join(dir, 'rasters/elev'))).toBe(false);
  });

  it('mergeLayer, pure: an undated or annual file is replaced only by one with every period it had', () => {
    const base: RasterLayerEntry = {
      dataType: 'gdd',
      subDataType: 'apples',
      extent: 'tc',
      extentBbox: [17.7, -34.9, 24.25, -30.4],
      timeScale: 'annual',
      unit: '°C·day',
      description: 'x',
      crs: 'EPSG:4326',
      bbox: [18, -33.48, 18.8, -33],
      width: 40,
      height: 24,
      scale: 1,
      offset: 0,
      nodata: -32768,
      resolution: [0.02, 0.02],
      tileSize: [32, 32],
      files: [{ path: 'rasters/gdd-apples/years.tif', periods: ['2019', '2020'] }],
    };
    const more = { ...base, files: [{ path: 'rasters/gdd-apples/years.tif', periods: ['2019', '2020', '2021'] }] };
    expect(mergeLayer(base, more, { where: 'D' }).layer.files).toEqual(more.files);
    const fewer = { ...base, files: [{ path: 'rasters/gdd-apples/years.tif', periods: ['2021'] }] };
    expect(() => mergeLayer(base, fewer, { where: 'D' })).toThrow(/holds 2 dates in years\.tif; these inputs give 1/);
    expect(mergeLayer(base, fewer, { where: 'D', replace: true }).layer.files).toEqual(fewer.files);
  });
});
