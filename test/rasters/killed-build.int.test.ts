/**
 * A build killed at any moment leaves the dataset answering: the CLI building
 * a year into a dataset is killed (SIGKILL, no clean-up) at several points of
 * its run — while Node and GDAL start, while GDAL reads, while the store is
 * written, around the catalog's rename — and after each the dataset's
 * catalog.json is whole and every answer is the old one or, once the build
 * got far enough, the new one: never an error, never another number.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cliKilledAfter } from '../helpers/cli.ts';
import { writeGridInput } from '../helpers/grid-inputs.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.01, width: 120, height: 80 };
let root: string;
let base: string;
const days = (y: number) => {
  const out: string[] = [];
  for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};
const input = (y: number) => join(root, `t_${y}.tif`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-killed-'));
  for (const [y, shift] of [
    [2023, 0],
    [2024, 0],
    [20240, 3],
  ] as const) {
    const year = y > 9999 ? 2024 : y;
    const dates = days(year);
    await writeInputGeoTiff(y > 9999 ? join(root, 't_2024_v2.tif') : input(y), {
      width: G.width,
      height: G.height,
      geoTransform: [G.west, G.res, 0, G.north, 0, -G.res],
      bands: dates.length,
      descriptions: dates,
      fill: (b, out) => {
        for (let r = 0; r < G.height; r++)
          for (let c = 0; c < G.width; c++) out[r * G.width + c] = 10 + shift + 0.01 * c + 0.1 * Math.sin(b / 9 + r);
      },
    });
  }
  // The dataset as it was: 2023 and 2024; the killed build rebuilds 2024 with other values.
  base = join(root, 'base');
  await buildRasterLayer({
    dir: base,
    dataType: 'temp',
    subDataType: 'mean',
    extent: 'tc',
    inputs: [input(2023), input(2024)],
  });
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

const WKT = `POINT (${G.west + 50.5 * G.res} ${G.north - 30.5 * G.res})`;
const ZARR_QUERY = {
  wkts: WKT,
  dataType: 'temp',
  options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
  startDate: '2023-12-30',
  endDate: '2024-01-02',
};
const MAP_QUERY = {
  wkts: WKT,
  dataType: 'gdd',
  options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc' },
  startDate: '2019',
  endDate: '2020',
};

async function answer(dir: string, query: object = ZARR_QUERY): Promise<unknown> {
  const engine = createNodeEngine(dir);
  try {
    return await engine.query('point', query);
  } finally {
    await engine.close();
  }
}

describe('a build killed at any moment', () => {
  it('leaves catalog.json whole and the dataset answering, the old answer or the new', async () => {
    const old = await answer(base);
    // The new answer, from a build left to finish.
    const done = join(root, 'done');
    await cp(base, done, { recursive: true });
    await buildRasterLayer({
      dir: done,
      dataType: 'temp',
      subDataType: 'mean',
      extent: 'tc',
      inputs: [join(root, 't_2024_v2.tif')],
    });
    const fresh = await answer(done);
    expect(fresh).not.toEqual(old);
    const seen = new Set<string>();
    for (const ms of [200, 900, 1700, 2500, 3200, 4000, 5200]) {
      const dir = join(root, `kill-${ms}`);
      await cp(base, dir, { recursive: true });
      const code = await cliKilledAfter(
        ['build', '--out', dir, '--layer', 'temp/mean', '--extent', 'tc', join(root, 't_2024_v2.tif')],
        ms,
      );
      // Whole JSON, and an answer equal to one of the two versions.
      await catalogJson(join(dir, 'catalog.json'));
      const got = await answer(dir);
      const which =
        JSON.stringify(got) === JSON.stringify(old)
          ? 'old'
          : JSON.stringify(got) === JSON.stringify(fresh)
            ? 'new'
            : 'other';
      expect(which, `killed after ${ms} ms (exit ${code})`).not.toBe('other');
      seen.add(which);
    }
    // The kills fell both before and after the build registered its work.
    expect(seen.has('old')).toBe(true);
  });

  it('a map layer too: its rebuilt file is a new file, so the old one answers until the catalog switches', async () => {
    // gdd/apples 2019–2020 in one map file, rebuilt with other values.
    const gdd = (name: string, shift: number) =>
      writeGridInput(join(root, name), G, ['2019', '2020'], (c, r, b) => 1500 + shift + 3 * c + 2 * r + 100 * b);
    await gdd('gdd_a.tif', 0);
    await gdd('gdd_b.tif', 250);
    const mapBase = join(root, 'map-base');
    await cp(base, mapBase, { recursive: true });
    const layer = { dataType: 'gdd', subDataType: 'apples', extent: 'tc' };
    await buildRasterLayer({ dir: mapBase, ...layer, inputs: [join(root, 'gdd_a.tif')] });
    const old = await answer(mapBase, MAP_QUERY);
    const done = join(root, 'map-done');
    await cp(mapBase, done, { recursive: true });
    await buildRasterLayer({ dir: done, ...layer, inputs: [join(root, 'gdd_b.tif')] });
    const fresh = await answer(done, MAP_QUERY);
    expect(fresh).not.toEqual(old);
    const seen = new Set<string>();
    for (const ms of [200, 700, 1200, 1800, 2500, 3300, 4200]) {
      const dir = join(root, `map-kill-${ms}`);
      await cp(mapBase, dir, { recursive: true });
      const code = await cliKilledAfter(
        ['build', '--out', dir, '--layer', 'gdd/apples', '--extent', 'tc', join(root, 'gdd_b.tif')],
        ms,
      );
      const got = JSON.stringify(await answer(dir, MAP_QUERY));
      const which = got === JSON.stringify(old) ? 'old' : got === JSON.stringify(fresh) ? 'new' : 'other';
      expect(which, `killed after ${ms} ms (exit ${code})`).not.toBe('other');
      // The other layer is as it was, whatever the moment.
      expect(await answer(dir), `killed after ${ms} ms`).toEqual(await answer(mapBase));
      seen.add(which);
    }
    expect(seen.has('old')).toBe(true);
  });
});
