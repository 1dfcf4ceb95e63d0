// Builds the shared station fixture once for all test files: a small dataset
// made by the demo generator as CSV inputs and the real build.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { writeDemoStationInputs } from '../src/builder/demo-stations.ts';
import { buildStations } from '../src/builder/stations-build.ts';
import { buildDemo } from '../src/node/demo.ts';

const exec = promisify(execFile);
const REPO = new URL('..', import.meta.url).pathname;

/** Options of the fixture, shared with the tests that read its inputs. */
export const FIXTURE = { stations: 40, start: '2024-01-01', end: '2024-03-31', format: 'csv' as const, seed: 7 };

let keep = false;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

interface Fixtures {
  root: string;
  stationFixture: { root: string; inputs: string; dataset: string; stationsCsv: string; hourlyCsv: string };
  demoDataset: string;
}

// The integration and browser tiers (vitest.config.ts) both run this setup in the one main process:
// the fixtures are built once and shared, and removed after the last tier's teardown.
const shared = globalThis as { cqFixtures?: Promise<Fixtures>; cqFixtureUsers?: number; cqSite?: Promise<string> };

// CLIMATE_QUERY_TEST_CACHE=DIR keeps the fixtures in DIR between runs (a
// developer's loop; delete DIR after changing a builder). CI sets it to a
// fresh directory per run, so each of its tiers shares one build of them.
async function buildFixtures(): Promise<Fixtures> {
  const cache = process.env.CLIMATE_QUERY_TEST_CACHE;
  keep = Boolean(cache);
  const root = cache ?? (await mkdtemp(join(tmpdir(), 'climate-query-fixture-')));
  const inputs = join(root, 'inputs');
  const dataset = join(root, 'dataset');
  const files = { stations: join(inputs, 'stations.csv'), hourly: join(inputs, 'hourly.csv') };
  const t0 = Date.now();
  const stationFixture = async () => {
    if (keep && (await exists(join(dataset, 'catalog.json')))) return;
    await mkdir(inputs, { recursive: true });
    Object.assign(files, await writeDemoStationInputs(inputs, FIXTURE));
    await buildStations({ stations: files.stations, hourly: files.hourly }, dataset, 'fixture');
  };
  // The full demo dataset (stations and every raster layer), as `npm start` builds it.
  const demo = join(root, 'demo');
  const demoDataset = async () => {
    if (!(keep && (await exists(join(demo, 'catalog.json'))))) await buildDemo(demo);
  };
  // Two folders, two builds: at once, as neither keeps both cores busy alone (JavaScript writing
  // inputs, then DuckDB, then gdal3.js).
  await Promise.all([stationFixture(), demoDataset()]);
  console.log(`test fixtures ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${root})`);
  return {
    root,
    stationFixture: { root, inputs, dataset, stationsCsv: files.stations, hourlyCsv: files.hourly },
    demoDataset: demo,
  };
}

/**
 * The site as `npm run build` makes it (no dataset in it), built once for the browser tier: its
 * tests serve it rather than Vite's dev server where they test the app, not `npm start`. Built
 * each run, never kept in the cache: it is the source under test.
 */
async function buildTestSite(root: string): Promise<string> {
  const t0 = Date.now();
  const site = join(root, 'site');
  await rm(site, { recursive: true, force: true });
  await exec(join(REPO, 'node_modules/.bin/vite'), ['build', '--outDir', site, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: REPO,
    env: { ...process.env, CQ_NO_PUBLIC: '1' },
  });
  console.log(`test site built in ${((Date.now() - t0) / 1000).toFixed(1)} s (${site})`);
  return site;
}

export async function setup(project: TestProject): Promise<void> {
  shared.cqFixtureUsers = (shared.cqFixtureUsers ?? 0) + 1;
  shared.cqFixtures ??= buildFixtures();
  const f = await shared.cqFixtures;
  project.provide('stationFixture', f.stationFixture);
  project.provide('demoDataset', f.demoDataset);
  if (project.name === 'browser') {
    shared.cqSite ??= buildTestSite(f.root);
    project.provide('builtSite', await shared.cqSite);
  } else project.provide('builtSite', '');
}

export async function teardown(): Promise<void> {
  shared.cqFixtureUsers = (shared.cqFixtureUsers ?? 1) - 1;
  if (shared.cqFixtureUsers > 0 || !shared.cqFixtures) return;
  const { root } = await shared.cqFixtures;
  shared.cqFixtures = undefined;
  shared.cqSite = undefined;
  await rm(join(root, 'site'), { recursive: true, force: true });
  if (!keep) await rm(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    stationFixture: { root: string; inputs: string; dataset: string; stationsCsv: string; hourlyCsv: string };
    demoDataset: string;
    /** The built site's folder (browser tier; empty in the others). */
    builtSite: string;
  }
}
