/**
 * The operator's paths as an operator and an attacker take them, through the CLI: a merge whose
 * source lists paths out of the dataset, onto the catalog or onto another layer's file, a source
 * missing a file or holding a link, merges and removes killed at many moments, two merges and a
 * build at once, and `serve` over a dataset that changes under it or holds links. Each must lose
 * nothing, answer nothing wrong and leak nothing; each refusal names what it refused.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer } from '../../src/node/server.ts';
import { cli, cliKilledAfter } from '../helpers/cli.ts';
import { daysOfYear, writeGridInput } from '../helpers/grid-inputs.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.02, width: 30, height: 20 };
let root: string;
/** The dataset as the operator has it: gdd/apples 2019–2020 (map), chill/dpcu 2022–2023 (map), temp/mean 2023 (zarr). */
let main: string;
/** Built on another machine: gdd/apples 2019–2021 with other values (map), temp/mean 2024 (zarr). */
let source: string;
const input = (name: string) => join(root, 'inputs', name);

const writeInput = (name: string, periods: string[], value: (c: number, r: number, b: number) => number) =>
  writeGridInput(input(name), G, periods, value);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-operator-'));
  await mkdir(join(root, 'inputs'));
  await writeInput('gdd-a.tif', ['2019', '2020'], (c, r, b) => 2000 + 3 * c + 2 * r + 100 * b);
  await writeInput('gdd-b.tif', ['2019', '2020', '2021'], (c, r, b) => 2500 + 3 * c + 2 * r + 100 * b);
  await writeInput('chill.tif', ['2022', '2023'], (c, r, b) => 900 - 4 * c + r - 50 * b);
  await writeInput('t2023.tif', daysOfYear(2023), (c, r, b) => 12 + 0.1 * c - 0.05 * r + 6 * Math.sin(b / 58));
  await writeInput('t2024.tif', daysOfYear(2024), (c, r, b) => 13 + 0.1 * c - 0.05 * r + 6 * Math.sin(b / 58));
  await writeInput('t2022.tif', daysOfYear(2022), (c, r, b) => 11 + 0.1 * c - 0.05 * r + 6 * Math.sin(b / 58));
  await writeInput('t2021.tif', daysOfYear(2021), (c, r, b) => 10 + 0.1 * c - 0.05 * r + 6 * Math.sin(b / 58));
  main = join(root, 'main');
  source = join(root, 'source');
  const layer = (dir: string, dataType: string, subDataType: string, file: string) =>
    buildRasterLayer({ dir, dataType, subDataType, extent: 'tc', inputs: [input(file)] });
  await layer(main, 'gdd', 'apples', 'gdd-a.tif');
  await layer(main, 'chill', 'dpcu', 'chill.tif');
  await layer(main, 'temp', 'mean', 't2023.tif');
  await layer(source, 'gdd', 'apples', 'gdd-b.tif');
  await layer(source, 'temp', 'mean', 't2024.tif');
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

const P = `POINT (${G.west + 10.5 * G.res} ${G.north - 7.5 * G.res})`;
const QUERIES = [
  {
    wkts: P,
    dataType: 'gdd',
    options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc' },
    startDate: '2019',
    endDate: '2020',
  },
  {
    wkts: P,
    dataType: 'chill',
    options: { subDataType: 'dpcu', timeScale: 'annual', dataExtent: 'tc' },
    startDate: '2022',
    endDate: '2023',
  },
  {
    wkts: P,
    dataType: 'temp',
    options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
    startDate: '2023-12-29',
    endDate: '2023-12-31',
  },
];

/** Every answer of QUERIES from the dataset folder, status and body, as text. */
async function answers(dir: string): Promise<string> {
  const engine = createNodeEngine(dir);
  try {
    const out = [];
    for (const q of QUERIES)
      out.push(await engine.handle({ method: 'POST', path: '/api/point/', body: JSON.stringify(q) }));
    // Every answer here has values: a query the test wrote wrong must not pass as "unchanged".
    expect(out.filter((a) => a.status === 200).length, JSON.stringify(out)).toBeGreaterThan(0);
    return JSON.stringify(out);
  } finally {
    await engine.close();
  }
}

const catalogOf = async (dir: string) => (await catalogJson(join(dir, 'catalog.json'))) as Catalog;

/** A copy of `from` whose catalog.json `edit` changed. */
async function edited(name: string, from: string, edit: (c: Catalog, dir: string) => Promise<void> | void) {
  const dir = join(root, name);
  await cp(from, dir, { recursive: true });
  const c = await catalogOf(dir);
  await edit(c, dir);
  await writeFile(join(dir, 'catalog.json'), JSON.stringify(c));
  return dir;
}

/** Every file and folder under `dir`/rasters, relative. */
async function rasterEntries(dir: string): Promise<string[]> {
  const all = await readdir(join(dir, 'rasters'), { recursive: true }).catch(() => []);
  return all.map((p) => `rasters/${p}`);
}

/** Whether every entry under rasters/ is a listed file, inside one, or a folder above one. */
async function onlyListed(dir: string): Promise<string[]> {
  const listed = (await catalogOf(dir)).rasters.flatMap((l) => l.files.map((f) => f.path));
  return (await rasterEntries(dir)).filter(
    (p) => !listed.some((l) => p === l || p.startsWith(`${l}/`) || l.startsWith(`${p}/`)),
  );
}

/** A merge into a fresh copy of main, answered before and after, the catalog compared. */
async function refusedMerge(name: string, from: string, text: RegExp) {
  const target = join(root, `${name}-target`);
  await cp(main, target, { recursive: true });
  const before = await readFile(join(target, 'catalog.json'), 'utf8');
  const r = await cli(['layers', 'merge', from, '--data', target]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(text);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(await readFile(join(target, 'catalog.json'), 'utf8')).toBe(before);
  expect(await onlyListed(target)).toEqual([]);
  return target;
}

describe('a merge takes a source as input, checked whole before anything is copied', () => {
  it('a source listing a path out of the dataset is refused, and the folder it named is untouched', async () => {
    const evil = await edited('evil-escape', source, (c) => {
      c.rasters[0]!.files[0]!.path = 'rasters/../../victim';
    });
    const victim = join(root, 'evil-escape-target', '..', 'victim');
    await mkdir(victim, { recursive: true });
    await writeFile(join(victim, 'keep.txt'), 'mine');
    await refusedMerge('evil-escape', evil, /rasters\/\.\.\/\.\.\/victim.*climbs out.*Nothing was merged/s);
    expect(await readFile(join(victim, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it.each([
    ['catalog.json', /where the catalog is/],
    ['rasters/gdd-apples', /rasters\/gdd-apples.*temp\/mean|twice/],
  ])('a source layer whose preview is %s is refused by name', async (preview, text) => {
    const evil = await edited(`evil-preview-${preview.replace(/\W/g, '')}`, source, (c) => {
      c.rasters.find((l) => l.dataType === 'temp')!.preview = preview;
    });
    await refusedMerge(`evil-preview-${preview.replace(/\W/g, '')}`, evil, text);
  });

  it('a percent-encoded dot segment in a source is refused like ".."', async () => {
    const evil = await edited('evil-encoded', source, (c) => {
      c.rasters[0]!.files[0]!.path = 'rasters/.%2E/.%2E/victim.tif';
    });
    await refusedMerge('evil-encoded', evil, /victim\.tif.*percent escapes.*Nothing was merged/s);
  });

  it('a source missing a file it lists is named, with no stack', async () => {
    const gone = join(root, 'missing-file');
    await cp(source, gone, { recursive: true });
    const c = await catalogOf(gone);
    const file = c.rasters.find((l) => l.dataType === 'gdd')!.files[0]!.path;
    await rm(join(gone, file));
    await refusedMerge('missing-file', gone, new RegExp(`lists ${file}, which is missing there; nothing was merged`));
  });

  it('a source holding a link (in a store, or as a file) is refused: a merge copies files, never links', async () => {
    const linked = join(root, 'linked');
    await cp(source, linked, { recursive: true });
    const store = (await catalogOf(linked)).rasters.find((l) => l.dataType === 'temp')!.files[0]!.path;
    await writeFile(join(root, 'secret.txt'), 'secret');
    await symlink(join(root, 'secret.txt'), join(linked, store, 'leak'));
    await refusedMerge('linked', linked, /holds a link .*leak.*never links/);
  });

  it("a layer whose file is another layer's path gets its own file: the other layer answers as before", async () => {
    const target = join(root, 'onto-other');
    await cp(main, target, { recursive: true });
    const before = JSON.parse(await answers(target));
    const gddFile = (await catalogOf(target)).rasters.find((l) => l.dataType === 'gdd')!.files[0]!.path;
    // A dataset whose chill layer claims the path of the target's gdd file, holding chill values.
    const evil = join(root, 'evil-onto');
    await buildRasterLayer({
      dir: evil,
      dataType: 'chill',
      subDataType: 'dpcu',
      extent: 'tc',
      inputs: [input('chill.tif')],
    });
    const c = await catalogOf(evil);
    const chill = c.rasters[0]!;
    await mkdir(join(evil, 'rasters/gdd-apples'), { recursive: true });
    await rename(join(evil, chill.files[0]!.path), join(evil, gddFile));
    chill.files[0]!.path = gddFile;
    await writeFile(join(evil, 'catalog.json'), JSON.stringify(c));
    const r = await cli(['layers', 'merge', evil, '--data', target]);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(await answers(target));
    expect(after[0]).toEqual(before[0]);
    expect(after[1].status).toBe(200);
    const merged = (await catalogOf(target)).rasters.find((l) => l.dataType === 'chill')!.files[0]!.path;
    expect(merged).toMatch(/^rasters\/chill-dpcu\/years-[0-9a-f]{8}\.tif$/);
    expect(await onlyListed(target)).toEqual([]);
  });
});

describe('a catalog that shares a file is refused by every command that would change the dataset', () => {
  it('layers remove of a layer whose preview is catalog.json deletes nothing', async () => {
    const target = await edited('remove-catalog', main, (c) => {
      c.rasters.find((l) => l.dataType === 'chill')!.preview = 'catalog.json';
    });
    const r = await cli(['layers', 'remove', 'chill/dpcu', '--data', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/damaged: .*"catalog\.json" for chill\/dpcu \(tc\), where the catalog is/);
    expect(existsSync(join(target, 'catalog.json'))).toBe(true);
    expect((await catalogOf(target)).rasters).toHaveLength(3);
  });
});

describe('killed at any moment', () => {
  const KILLS = [150, 300, 450, 550, 650, 750, 850, 1000, 1200, 1500, 2000, 3000];

  it('a merge leaves the previous dataset answering exactly as before, or the merged one; the next run leaves nothing behind', async () => {
    const old = await answers(main);
    const done = join(root, 'merge-done');
    await cp(main, done, { recursive: true });
    expect((await cli(['layers', 'merge', source, '--data', done])).code).toBe(0);
    const merged = await answers(done);
    expect(merged).not.toBe(old);
    const seen: string[] = [];
    for (const ms of KILLS) {
      const dir = join(root, `merge-kill-${ms}`);
      await cp(main, dir, { recursive: true });
      const code = await cliKilledAfter(['layers', 'merge', source, '--data', dir], ms);
      const got = await answers(dir);
      const which = got === old ? 'old' : got === merged ? 'new' : 'other';
      expect(which, `killed after ${ms} ms (exit ${code}): ${got}`).not.toBe('other');
      seen.push(which);
      // The next run cleans up what the killed one left, and ends where an uninterrupted one does.
      const again = await cli(['layers', 'merge', source, '--data', dir]);
      expect(again.code, again.stderr).toBe(0);
      expect(await answers(dir)).toBe(merged);
      expect(await onlyListed(dir), `killed after ${ms} ms`).toEqual([]);
      expect((await readdir(dir)).filter((f) => f.startsWith('.') || f.endsWith('.tmp'))).toEqual([]);
    }
    expect(seen).toContain('old');
  }, 300_000);

  it('a remove leaves the layer answering as before or gone, never another number; other layers as they were', async () => {
    const old = JSON.parse(await answers(main));
    const seen = new Set<number>();
    for (const ms of KILLS.slice(0, 10)) {
      const dir = join(root, `remove-kill-${ms}`);
      await cp(main, dir, { recursive: true });
      await cliKilledAfter(['layers', 'remove', 'gdd/apples', '--data', dir], ms);
      const got = JSON.parse(await answers(dir));
      expect(got.slice(1), `killed after ${ms} ms`).toEqual(old.slice(1));
      if (got[0].status === 200) expect(got[0]).toEqual(old[0]);
      // Gone: the dataset no longer offers the layer, and says so of the request's dataType.
      else
        expect(got[0].body.error, `killed after ${ms} ms`).toMatchObject({ code: 'invalid_field', field: '/dataType' });
      seen.add(got[0].status);
      expect((await cli(['layers', 'remove', 'chill/dpcu', '--data', dir])).code).toBe(0);
      expect(await onlyListed(dir)).toEqual([]);
    }
    expect(seen.has(200)).toBe(true);
  }, 300_000);
});

describe('one writer at a time', () => {
  it('two merges and a build at once: every year listed, or the late command refused by name; none lost', async () => {
    const m2 = join(root, 'machine-2022');
    await buildRasterLayer({
      dir: m2,
      dataType: 'temp',
      subDataType: 'mean',
      extent: 'tc',
      inputs: [input('t2022.tif')],
    });
    const target = join(root, 'concurrent');
    await cp(main, target, { recursive: true });
    const runs = await Promise.all([
      cli(['layers', 'merge', source, '--data', target]),
      cli(['layers', 'merge', m2, '--data', target]),
      cli(['build', '--out', target, '--layer', 'temp/mean', '--extent', 'tc', input('t2021.tif')]),
    ]);
    const years = new Set(
      (await catalogOf(target)).rasters.find((l) => l.dataType === 'temp')!.files.map((f) => f.periods[0]!.slice(0, 4)),
    );
    const expected = ['2024', '2022', '2021'];
    runs.forEach((r, i) => {
      if (r.code === 0) expect(years.has(expected[i]!), `run ${i} said it added ${expected[i]}`).toBe(true);
      else {
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/is changing the dataset at .*; one command changes a dataset at a time/);
        expect(years.has(expected[i]!)).toBe(false);
      }
    });
    expect(years.has('2023')).toBe(true);
    expect(runs.some((r) => r.code === 0)).toBe(true);
    expect(await onlyListed(target)).toEqual([]);
  }, 120_000);
});

describe('serve over a dataset that changes and holds links', () => {
  it('answers from catalog.json as a merge switched it, and serves no link or dotfile a store holds', async () => {
    const dir = join(root, 'served');
    await cp(main, dir, { recursive: true });
    await writeFile(join(dir, '.env'), 'SECRET=1');
    const store = (await catalogOf(dir)).rasters.find((l) => l.dataType === 'temp')!.files[0]!.path;
    await symlink(join(dir, '.env'), join(dir, store, 'env-link'));
    const chunk = (await readdir(join(dir, store, 'temp_mean'))).find((f) => /^\d/.test(f))!;
    await symlink(join(dir, store, 'temp_mean', chunk), join(dir, store, 'temp_mean', '99.99.99'));
    const engine = createNodeEngine(dir);
    const server = await startServer({
      engine,
      port: 0,
      staticRoot: dir,
      listedOnly: true,
      catalogFile: join(dir, 'catalog.json'),
    });
    try {
      const get = (p: string) =>
        fetch(new URL(p, server.url)).then(async (r) => ({ status: r.status, text: await r.text() }));
      expect((await get(`${store}/temp_mean/${chunk}`)).status).toBe(200);
      for (const p of [`${store}/env-link`, `${store}/temp_mean/99.99.99`, '.env']) {
        const r = await get(p);
        expect(r.status, p).toBe(404);
        expect(r.text).not.toContain('SECRET');
      }
      const q2024 = { ...QUERIES[2]!, startDate: '2024-01-01', endDate: '2024-01-02' };
      const ask = () =>
        fetch(new URL('api/point/', server.url), { method: 'POST', body: JSON.stringify(q2024) }).then((r) => r.status);
      expect(await ask()).toBe(400);
      expect((await cli(['layers', 'merge', source, '--data', dir])).code).toBe(0);
      expect(await ask()).toBe(200);
    } finally {
      await server.close();
      await engine.close();
    }
  }, 60_000);
});
