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

let root = '';
let keep = false;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

// CLIMATE_QUERY_TEST_CACHE=DIR keeps the fixtures in DIR between runs (a
// developer's loop; delete DIR after changing a builder). CI never sets it,
// so every CI run builds them from scratch.
export async function setup(project: TestProject): Promise<void> {
  const cache = process.env.CLIMATE_QUERY_TEST_CACHE;
  keep = Boolean(cache);
  root = cache ?? (await mkdtemp(join(tmpdir(), 'climate-query-fixture-')));
  const inputs = join(root, 'inputs');
  const dataset = join(root, 'dataset');
  const files = { stations: join(inputs, 'stations.csv'), hourly: join(inputs, 'hourly.csv') };
  if (!(keep && (await exists(join(dataset, 'catalog.json'))))) {
    await mkdir(inputs, { recursive: true });
    Object.assign(files, await writeDemoStationInputs(inputs, FIXTURE));
    await buildStations({ stations: files.stations, hourly: files.hourly }, dataset, 'fixture');
  }
  project.provide('stationFixture', { root, inputs, dataset, stationsCsv: files.stations, hourlyCsv: files.hourly });
  // The full demo dataset (stations and every raster layer), as `npm start` builds it.
  const demo = join(root, 'demo');
  if (!(keep && (await exists(join(demo, 'catalog.json'))))) await buildDemo(demo);
  project.provide('demoDataset', demo);
}

export async function teardown(): Promise<void> {
  if (root && !keep) await rm(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    stationFixture: { root: string; inputs: string; dataset: string; stationsCsv: string; hourlyCsv: string };
    demoDataset: string;
  }
}
