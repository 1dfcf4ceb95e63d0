/**
 * A station build killed at any moment leaves the dataset answering as before or as after: the new
 * archive is written under a name the catalog does not use yet (`stations` when free, else
 * `stations-<build>`), the catalog switches to it by one rename, and only then is the old archive
 * removed. The next build ends where an uninterrupted one does and leaves no unlisted archive.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli, cliKilledAfter } from '../helpers/cli.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const fx = inject('stationFixture');
let root: string;
let hourly: string;
let query: object;
/** The station whose record the tests rebuild or remove. */
let id: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-killed-stations-'));
  // One station's hourly record again, 1.5 °C warmer: the build replaces that station's series.
  const lines = (await readFile(fx.hourlyCsv, 'utf8')).trim().split('\n');
  const header = lines[0]!.split(',');
  id = lines[1]!.split(',')[0]!;
  const t = header.indexOf('temperature_mean');
  const warmer = lines
    .slice(1)
    .filter((l) => l.startsWith(`${id},`))
    .map((l) => {
      const cells = l.split(',');
      if (cells[t] !== '') cells[t] = (Number(cells[t]) + 1.5).toFixed(1);
      return cells.join(',');
    });
  hourly = join(root, 'warmer.csv');
  await writeFile(hourly, `${[lines[0], ...warmer].join('\n')}\n`);
  const station = (await readFile(fx.stationsCsv, 'utf8'))
    .split('\n')
    .find((l) => l.startsWith(`${id},`))!
    .split(',');
  const day = warmer[30]!.split(',')[1]!.slice(0, 10);
  query = {
    wkts: `POINT (${station[3]} ${station[2]})`,
    dataTypes: ['temperature_mean'],
    options: { timeScale: 'daily' },
    startDate: day,
    endDate: day,
  };
}, 120_000);
afterAll(() => rm(root, { recursive: true, force: true }));

async function answer(dir: string): Promise<string> {
  const engine = createNodeEngine(dir);
  try {
    const r = await engine.handle({ method: 'POST', path: '/api/nearest-station/', body: JSON.stringify(query) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return JSON.stringify(r.body);
  } finally {
    await engine.close();
  }
}

const args = (dir: string) => ['build', '--out', dir, '--stations', fx.stationsCsv, '--hourly', hourly];

/** The archives in `dir` that the catalog does not name. */
async function unlistedArchives(dir: string): Promise<string[]> {
  const c = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
  const listed = c.stations!.index.split('/')[0];
  return (await readdir(dir)).filter((f) => /^\.?stations/.test(f) && f !== listed);
}

describe('a station build killed at any moment', () => {
  it('leaves the old answer or the new, never an error; the next build finishes and leaves no other archive', async () => {
    const old = await answer(fx.dataset);
    const done = join(root, 'done');
    await cp(fx.dataset, done, { recursive: true });
    const built = await cli(args(done));
    expect(built.code, built.stderr).toBe(0);
    // Each step is said as it starts (and again every few seconds while it lasts): a long build is never silent.
    const steps = [
      ...new Set(
        built.stderr
          .split('\n')
          .filter((l) => l.startsWith('build: '))
          .map((l) => l.replace(/ \(.*$|, \d+ s so far$/, '')),
      ),
    ];
    expect(steps).toEqual(
      expect.arrayContaining([
        'build: checking the hourly files',
        'build: deriving daily from hourly',
        'build: sorting the hourly rows',
        'build: writing hourly station files',
        'build: indexing the hourly files',
        'build: writing the station index and coverage',
      ]),
    );
    expect(steps.indexOf('build: checking the hourly files')).toBeLessThan(
      steps.indexOf('build: indexing the hourly files'),
    );
    expect(built.stderr).toMatch(/build: writing hourly station files \((\d+) of \1\)/);
    const fresh = await answer(done);
    expect(fresh).not.toBe(old);
    // The new archive has its own name; the old one is gone.
    expect((await readdir(done)).filter((f) => f.startsWith('stations'))).toEqual([
      expect.stringMatching(/^stations-[A-Za-z0-9]+$/),
    ]);
    const seen = new Set<string>();
    for (const [i, ms] of [300, 800, 1300, 1900, 2600, 3500, 4500].entries()) {
      const dir = join(root, `kill-${ms}`);
      await cp(fx.dataset, dir, { recursive: true });
      const code = await cliKilledAfter(args(dir), ms);
      const got = await answer(dir);
      const which = got === old ? 'old' : got === fresh ? 'new' : 'other';
      expect(which, `killed after ${ms} ms (exit ${code})`).not.toBe('other');
      seen.add(which);
      // The next build, after every other kill (each takes a build's time; CI's budget is minutes).
      if (i % 2 === 1) continue;
      const again = await cli(args(dir));
      expect(again.code, again.stderr).toBe(0);
      expect(await answer(dir)).toBe(fresh);
      expect(await unlistedArchives(dir), `killed after ${ms} ms`).toEqual([]);
    }
    expect(seen.has('old')).toBe(true);
  }, 300_000);

  it('so is `stations remove` (a new archive without the station, switched to whole) and `index`', async () => {
    const old = await answer(fx.dataset);
    const done = join(root, 'removed');
    await cp(fx.dataset, done, { recursive: true });
    const removed = await cli(['stations', 'remove', id, '--data', done]);
    expect(removed.code, removed.stderr).toBe(0);
    const fresh = await answer(done);
    // The point's nearest station is another one now.
    expect(fresh).not.toBe(old);
    const seen = new Set<string>();
    for (const [i, ms] of [300, 600, 1000, 1500, 2200, 3200].entries()) {
      const dir = join(root, `remove-kill-${ms}`);
      await cp(fx.dataset, dir, { recursive: true });
      const code = await cliKilledAfter(['stations', 'remove', id, '--data', dir], ms);
      const got = await answer(dir);
      const which = got === old ? 'old' : got === fresh ? 'new' : 'other';
      expect(which, `killed after ${ms} ms (exit ${code})`).not.toBe('other');
      seen.add(which);
      // Re-indexing (itself a new archive switched to whole) removes what the kill left, and answers
      // alike; after every other kill.
      if (i % 2 === 1) continue;
      const again = await cli(['index', dir]);
      expect(again.code, again.stderr).toBe(0);
      expect(await answer(dir)).toBe(got);
      expect(await unlistedArchives(dir), `killed after ${ms} ms`).toEqual([]);
    }
    expect(seen.has('old')).toBe(true);
  }, 300_000);
});
