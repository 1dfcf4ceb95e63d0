// An hourly file's coverage line merges gaps under a day, so that a decade of reports with a gap
// at every missing hour is a line of a few KiB, not hundreds. The answers stay exact: a range
// shorter than the merged gaps and inside a run is settled from the station's rows. Two loggers:
// the nearer reports every hour but 10:00–13:00 each day; the farther every hour. A range inside
// the nearer's daily gap must go to the farther (not be answered null from the nearer), over a
// file read and over HTTP, in nearest-station and poly-aggregate; the expected answers come from
// the input rows, computed here.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStationsWithReport } from '../../src/builder/stations-build.ts';
import type { CoverageGroup } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

let dir: string;
let out: string;
let server: RangeServer;
const DAYS = 40;
const pad = (n: number) => String(n).padStart(2, '0');
/** "2024-01-dd hh:00:00" of hour h after 2024-01-01 00:00. */
const at = (h: number) => {
  const d = new Date(Date.UTC(2024, 0, 1) + h * 3_600_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:00:00`;
};
/** The nearer logger is silent 10:00–13:00 every day. */
const nearReports = (h: number) => h % 24 < 10 || h % 24 > 13;
const temp = (station: string, h: number) =>
  Math.round((12 + (station === 'NEAR' ? 0 : 3) + Math.sin(h / 5) * 4) * 10) / 10;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-coverage-gaps-'));
  const stations = join(dir, 'stations.csv');
  await writeFile(
    stations,
    'station_id,name,lat,lon,elevation\nNEAR,Near logger,-33.90,18.86,120\nFAR,Far logger,-33.95,18.95,200\n',
  );
  const rows = ['station_id,time,temperature_mean'];
  for (let h = 0; h < DAYS * 24; h++) {
    if (nearReports(h)) rows.push(`NEAR,${at(h)},${temp('NEAR', h)}`);
    rows.push(`FAR,${at(h)},${temp('FAR', h)}`);
  }
  const hourly = join(dir, 'hourly.csv');
  await writeFile(hourly, `${rows.join('\n')}\n`);
  out = join(dir, 'ds');
  await buildStationsWithReport({ stations, hourly: [hourly] }, out);
  server = await startRangeServer(out);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const POINT = 'POINT (18.861 -33.901)';
const nearest = async (dataset: string, start: string, end: string) => {
  const engine = createNodeEngine(dataset);
  try {
    const res = await engine.handle({
      method: 'POST',
      path: '/api/nearest-station/',
      body: JSON.stringify({
        wkts: POINT,
        dataTypes: ['temperature_mean'],
        startDate: start,
        endDate: end,
        options: { timeScale: 'hourly' },
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const answer = Object.values(
      res.body as Record<
        string,
        { metadata: Record<string, unknown>; data: Record<string, { temperature_mean: number | null }> }
      >,
    )[0]!;
    // Each hour's temperature, by the hour's key.
    return {
      metadata: answer.metadata,
      values: Object.fromEntries(Object.entries(answer.data).map(([k, v]) => [k, v.temperature_mean])),
    };
  } finally {
    await engine.close();
  }
};
/** The hours of [a, b] as the answer keys them, and the values the station's input rows give. */
const expected = (station: 'NEAR' | 'FAR', a: number, b: number) =>
  Object.fromEntries(
    Array.from({ length: b - a + 1 }, (_, k) => a + k).map((h) => [
      at(h).replace(' ', 'T'),
      station === 'NEAR' && !nearReports(h) ? null : temp(station, h),
    ]),
  );
const iso = (h: number) => at(h).replace(' ', 'T');

describe('an hourly coverage line with its short gaps merged', () => {
  it('is a few runs, marked merged, where the exact runs were one a day', async () => {
    const lines = (await readFile(join(out, 'stations', 'coverage.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; scale: string; groups: CoverageGroup[] });
    const near = lines.find((l) => l.id === 'NEAR' && l.scale === 'hourly')!;
    // Exactly: one run a day (40); merged: one run over all of it, and the group says so.
    expect(near.groups).toEqual([
      { types: ['temperature_mean'], runs: [[expect.any(Number), expect.any(Number)]], merged: 24 },
    ]);
    const far = lines.find((l) => l.id === 'FAR' && l.scale === 'hourly')!;
    // Nothing to merge: exact runs, no mark.
    expect(far.groups[0]!.merged).toBeUndefined();
  });

  for (const [how, dataset] of [
    ['from files', () => out],
    ['over HTTP', () => server.url],
  ] as const) {
    it(`${how}: a range inside the nearer's daily gap is answered from the farther station`, async () => {
      // Day 5, 10:00–13:00: the nearer has nothing.
      const [a, b] = [4 * 24 + 10, 4 * 24 + 13];
      const got = await nearest(dataset(), iso(a), iso(b));
      expect(got.metadata.actual_nearest).toBe(false);
      expect(got.values).toEqual(expected('FAR', a, b));
    });

    it(`${how}: a range that reaches out of the gap, or a day, is answered from the nearer`, async () => {
      for (const [a, b] of [
        [4 * 24 + 9, 4 * 24 + 13],
        [4 * 24 + 11, 4 * 24 + 14],
        [4 * 24 + 10, 5 * 24 + 9],
        [6 * 24, 8 * 24 - 1],
      ] as const) {
        const got = await nearest(dataset(), iso(a), iso(b));
        expect(got.metadata.actual_nearest, `${iso(a)}..${iso(b)}`).toBe(true);
        expect(got.values, `${iso(a)}..${iso(b)}`).toEqual(expected('NEAR', a, b));
      }
    });
  }

  it('poly-aggregate over both counts only the station with values in the gap', async () => {
    const engine = createNodeEngine(server.url);
    try {
      const res = await engine.handle({
        method: 'POST',
        path: '/api/poly-aggregate/',
        body: JSON.stringify({
          wkts: 'POLYGON ((18.8 -34.0, 19.0 -34.0, 19.0 -33.85, 18.8 -33.85, 18.8 -34.0))',
          dataTypes: ['temperature_mean'],
          startDate: iso(4 * 24 + 10),
          endDate: iso(4 * 24 + 13),
          options: { timeScale: 'hourly' },
        }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = res.body as { stations_metadata: Record<string, { station_lat: number; station_lon: number }> };
      // One contributing station, the farther (the nearer has no value in these hours).
      expect(Object.values(body.stations_metadata).map((m) => [m.station_lon, m.station_lat])).toEqual([
        [18.95, -33.95],
      ]);
    } finally {
      await engine.close();
    }
  });
});
