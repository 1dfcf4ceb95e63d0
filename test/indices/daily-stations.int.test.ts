// A station with only daily minimum and maximum, built by the real station
// build from chillR's Winters 2008 record: station-indices rebuilds its
// hours (chillR's make_hourly_temps at the station's latitude), says so,
// and fills and counts the one missing day inside the window.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStations } from '../../src/builder/stations-build.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { hourlyFromDaily } from '../../src/indices/hourly-from-daily.ts';
import { dynamicModelPortions, growingDegreeHours } from '../../src/indices/hourly-models.ts';
import type { IndexPeriod } from '../../src/contract/station-indices.ts';

let dir: string;
let engine: ClimateEngine;
let rows: Array<{ tmin: number; tmax: number }>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-daily-indices-'));
  const text = await readFile(new URL('./fixtures/winters-2008-daily.csv', import.meta.url), 'utf8');
  const lines = text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
  rows = lines.map((r) => ({ tmin: r[3] === 'NA' ? NaN : Number(r[3]), tmax: r[4] === 'NA' ? NaN : Number(r[4]) }));
  const daily = [
    'station_id,time,temperature_min,temperature_max',
    ...lines.map(
      ([y, m, d, lo, hi]) =>
        `WIN,${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')},${lo === 'NA' ? '' : lo},${hi === 'NA' ? '' : hi}`,
    ),
  ].join('\n');
  await writeFile(join(dir, 'stations.csv'), 'station_id,name,lat,lon,elevation\nWIN,Winters,38,-121.97,41\n');
  await writeFile(join(dir, 'daily.csv'), `${daily}\n`);
  await buildStations(
    { stations: join(dir, 'stations.csv'), daily: join(dir, 'daily.csv') },
    join(dir, 'out'),
    'winters',
  );
  engine = createNodeEngine(join(dir, 'out'));
}, 120_000);
afterAll(async () => {
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('station-indices from daily extremes', () => {
  it('rebuilds the hours at the station latitude, says so, and fills the one missing day (24 July) when options allow', async () => {
    const wkt = 'POINT (-121.9 38.05)';
    const res = (await engine.stationIndices({
      wkts: wkt,
      indices: ['chill_portions', 'gdh', 'frost_hours'],
      startDate: '2008-03-03',
      endDate: '2008-11-11',
      options: { maxGapHours: 24 },
    })) as Record<
      string,
      { metadata: { hours_from: string }; indices: Record<string, { periods: Record<string, IndexPeriod> }> }
    >;
    const ans = res[wkt]!;
    expect(ans.metadata.hours_from).toBe('daily');
    const cp = ans.indices.chill_portions!.periods['2008-03-03/2008-11-11']!;
    expect(cp).toMatchObject({ hours_expected: 254 * 24, hours_used: 254 * 24, hours_missing: 0, hours_filled: 24 });
    // The oracle: chillR's fix_weather (linear across the gap), then the hours of the whole year, cut to the window.
    const fixed = rows.map((r, i) =>
      Number.isNaN(r.tmin) && i > 0 && i < rows.length - 1
        ? { ...r, tmin: (rows[i - 1]!.tmin + rows[i + 1]!.tmin) / 2 }
        : r,
    );
    fixed[0] = { tmin: fixed[1]!.tmin, tmax: fixed[1]!.tmax };
    const hours = hourlyFromDaily(
      fixed.map((r, i) => ({ dayOfYear: i + 1, ...r })),
      38,
    ).flatMap((h) => Array.from(h));
    const window = hours.slice(62 * 24, 316 * 24);
    expect(window).toHaveLength(254 * 24);
    expect(cp.value).toBeCloseTo(
      dynamicModelPortions(window).reduce((a, b) => a + b, 0),
      3,
    );
    expect(ans.indices.gdh!.periods['2008-03-03/2008-11-11']!.value).toBeCloseTo(
      window.reduce((a, t) => a + growingDegreeHours(t), 0),
      3,
    );
    // Without filling, the day stays unknown: 24 hours missing, and the run of days on each side rebuilt on its own.
    const strict = (await engine.stationIndices({
      wkts: wkt,
      indices: ['gdh'],
      startDate: '2008-03-03',
      endDate: '2008-11-11',
    })) as typeof res;
    expect(strict[wkt]!.indices.gdh!.periods['2008-03-03/2008-11-11']).toMatchObject({
      hours_missing: 24,
      hours_filled: 0,
    });
  });
});
