// Builds the shared station fixture once for all test files: a small dataset
// made by the demo generator as CSV inputs and the real build.
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeDemoStationInputs } from '../src/builder/demo-stations.ts';
import { buildStations } from '../src/builder/stations-build.ts';
import { buildDemo } from '../src/node/demo.ts';

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
const shared = globalThis as { cqFixtures?: Promise<Fixtures>; cqFixtureUsers?: number };

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
  if (!(keep && (await exists(join(dataset, 'catalog.json'))))) {
    await mkdir(inputs, { recursive: true });
    Object.assign(files, await writeDemoStationInputs(inputs, FIXTURE));
    await buildStations({ stations: files.stations, hourly: files.hourly }, dataset, 'fixture');
  }
  // The full demo dataset (stations and every raster layer), as `npm start` builds it.
  const demo = join(root, 'demo');
  if (!(keep && (await exists(join(demo, 'catalog.json'))))) await buildDemo(demo);
  console.log(`test fixtures ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${root})`);
  return {
    root,
    stationFixture: { root, inputs, dataset, stationsCsv: files.stations, hourlyCsv: files.hourly },
    demoDataset: demo,
  };
}

export async function setup(project: TestProject): Promise<void> {
  shared.cqFixtureUsers = (shared.cqFixtureUsers ?? 0) + 1;
  shared.cqFixtures ??= buildFixtures();
  const f = await shared.cqFixtures;
  project.provide('stationFixture', f.stationFixture);
  project.provide('demoDataset', f.demoDataset);
}

export async function teardown(): Promise<void> {
  shared.cqFixtureUsers = (shared.cqFixtureUsers ?? 1) - 1;
  if (shared.cqFixtureUsers > 0 || !shared.cqFixtures) return;
  const { root } = await shared.cqFixtures;
  shared.cqFixtures = undefined;
  if (!keep) await rm(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    stationFixture: { root: string; inputs: string; dataset: string; stationsCsv: string; hourlyCsv: string };
    demoDataset: string;
  }
}
