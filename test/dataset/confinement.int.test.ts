/**
 * A folder dataset reads only files inside the folder: a symlink
 * planted in it that leads out — a station file, a whole `stations/daily`
 * folder, catalog.json — is refused by the API (CLI engine and `serve`) as
 * `dataset_unavailable`, and `serve`'s static side answers 404 for it, unless
 * the folder's links are trusted explicitly (`followLinks`, --follow-links).
 */
import { cp, mkdir, mkdtemp, readFile, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';
import { parseStationIndex, type IndexedStation } from '../../src/stations/station-index.ts';

const fx = inject('stationFixture');
let work: string;
let station: IndexedStation;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-confine-'));
  const bytes = await readFile(join(fx.dataset, 'stations/index.parquet'));
  const stations = await parseStationIndex(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    'fixture',
  );
  station = stations.find((s) => s.files.daily)!;
});
afterAll(() => rm(work, { recursive: true, force: true }));

const request = () => ({
  wkts: `POINT (${station.lon} ${station.lat})`,
  dataTypes: ['temperature_mean'],
  options: { timeScale: 'daily' },
  startDate: station.files.daily!.first,
  endDate: station.files.daily!.last,
});

/** A copy of the fixture where `inside` (relative path) was moved out of the folder and replaced by a symlink to it. */
async function linkedOut(name: string, inside: string): Promise<string> {
  const root = join(work, name, 'dataset');
  const outside = join(work, name, 'elsewhere');
  await cp(fx.dataset, root, { recursive: true });
  await mkdir(outside, { recursive: true });
  const moved = join(outside, inside.replace(/\//g, '_'));
  await rename(join(root, inside), moved);
  await symlink(moved, join(root, inside));
  return root;
}

async function ask(dataset: string, followLinks: boolean) {
  const engine = createNodeEngine(dataset, { followLinks });
  try {
    return await engine.handle({ method: 'POST', path: '/api/nearest-station/', body: JSON.stringify(request()) });
  } finally {
    await engine.close();
  }
}

describe('symlinks out of a folder dataset', () => {
  const cases: Array<[string, () => string]> = [
    ['a station file', () => station.files.daily!.path],
    ['the stations/daily folder', () => 'stations/daily'],
    ['catalog.json', () => 'catalog.json'],
  ];
  for (const [what, path] of cases) {
    it(`${what}: refused by the engine and by serve (API and static), answered when links are trusted`, async () => {
      const clean = await ask(fx.dataset, false);
      expect(clean.status).toBe(200);
      const root = await linkedOut(what.replace(/\W/g, '-'), path());

      const refused = await ask(root, false);
      expect(refused.status).toBe(503);
      const error = (refused.body as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('dataset_unavailable');
      expect(error.message).toMatch(/outside the dataset folder/);
      expect(error.message).toContain('--follow-links');

      const trusted = await ask(root, true);
      expect(trusted.status).toBe(200);
      expect(trusted.body).toEqual(clean.body);

      // serve: the API refuses like the engine, the static side answers 404 for the same file.
      const file = path() === 'stations/daily' ? station.files.daily!.path : path();
      for (const followLinks of [false, true]) {
        let server: RunningServer | undefined;
        const engine = createNodeEngine(root, { followLinks });
        try {
          server = await startServer({ engine, port: 0, staticRoot: root, followLinks });
          const api = await fetch(`${server.url}api/nearest-station/`, {
            method: 'POST',
            body: JSON.stringify(request()),
          });
          expect(api.status).toBe(followLinks ? 200 : 503);
          const got = await fetch(
            `${server.url}${file.split('/').map(encodeURIComponent).join('/').replace(/%3D/g, '=')}`,
          );
          expect(got.status).toBe(followLinks ? 200 : 404);
        } finally {
          await server?.close();
          await engine.close();
        }
      }
    });
  }
});
