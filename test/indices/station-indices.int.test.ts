// /api/station-indices/ on the station fixture against an independent
// oracle: the nearest station and its hours are taken from the *input* CSV
// (not the archive), gaps are filled and every index summed by plain loops
// written from the definitions in docs/indices.md. The Dynamic Model itself
// is the chillR-checked function (test/indices/hourly-models.test.ts): what
// is tested here is everything around it (which station, which hours, gaps,
// windows, seasons, completeness, polygons).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { dynamicModelPortions } from '../../src/indices/hourly-models.ts';
import type { IndexPeriod, StationIndicesResponse } from '../../src/contract/station-indices.ts';
import { distance, insideOrOn, readHourly, readStations, type OStation, type Series } from '../stations/oracle.ts';
import { expectClimateError as expectError } from '../helpers/expect-error.ts';
import { cli } from '../helpers/cli.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';

const fx = inject('stationFixture');
let stations: OStation[];
let hourly: Series;
let engine: ClimateEngine;

beforeAll(() => {
  stations = readStations(fx.stationsCsv);
  hourly = readHourly(fx.hourlyCsv);
  engine = createNodeEngine(fx.dataset);
});
afterAll(() => engine.close());

const DAY = 86_400_000;
const dayOf = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY;

/** The station's hourly temperatures over days [a, b] with `margin` days each side, NaN where none. */
function hoursOf(id: string, a: number, b: number, margin: number): Float64Array {
  const out = new Float64Array((b - a + 1 + 2 * margin) * 24).fill(NaN);
  for (const [key, v] of hourly.get(id) ?? []) {
    const h = Date.parse(`${key}Z`) / 3_600_000 - (a - margin) * 24;
    if (h >= 0 && h < out.length && v.temperature_mean !== null) out[h] = v.temperature_mean!;
  }
  return out;
}

/** Linear fill of inner gaps up to `max` hours (the oracle's own loop). */
function fill(xs: Float64Array, max: number): number {
  let filled = 0;
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isNaN(xs[i]!)) continue;
    let j = i;
    while (j < xs.length && Number.isNaN(xs[j]!)) j++;
    if (i > 0 && j < xs.length && j - i <= max) {
      for (let k = i; k < j; k++) xs[k] = xs[i - 1]! + ((xs[j]! - xs[i - 1]!) * (k - i + 1)) / (j - i + 1);
      filled += j - i;
    }
    i = j;
  }
  return filled;
}

const utah = (t: number) =>
  t <= 1.4 ? 0 : t <= 2.4 ? 0.5 : t <= 9.1 ? 1 : t <= 12.4 ? 0.5 : t <= 15.9 ? 0 : t <= 18 ? -0.5 : -1;
const gdh = (t: number) =>
  t < 4 || t > 36
    ? 0
    : t <= 25
      ? 10.5 * (1 - Math.cos((Math.PI * (t - 4)) / 21))
      : 21 * (1 - Math.sin((Math.PI / 2) * ((t - 25) / 11)));

/** Every index for one station over days [a, b], as the oracle computes them (null below 90 % known). */
function oracle(id: string, a: number, b: number, maxGap = 6, gddBase = 10) {
  const margin = Math.ceil(maxGap / 24);
  const all = hoursOf(id, a, b, margin);
  fill(all, maxGap);
  const hrs = all.slice(margin * 24, margin * 24 + (b - a + 1) * 24);
  const known = [...hrs].filter((t) => !Number.isNaN(t));
  const days = Array.from({ length: b - a + 1 }, (_, d) => Array.from(hrs.slice(d * 24, d * 24 + 24)));
  const dd = (base: number) =>
    days.reduce(
      (s, d) => (d.some(Number.isNaN) ? s : s + Math.max(0, (Math.min(...d) + Math.max(...d)) / 2 - base)),
      0,
    );
  const v = {
    chill_portions: dynamicModelPortions(known).reduce((s, x) => s + x, 0),
    utah_chill_units: known.reduce((s, t) => s + utah(t), 0),
    dpcu: days.reduce(
      (s, d) =>
        s +
        Math.max(
          0,
          d.filter((t) => !Number.isNaN(t)).reduce((x, t) => x + utah(t), 0),
        ),
      0,
    ),
    chilling_hours: known.filter((t) => t >= 0 && t <= 7.2).length,
    gdh: known.reduce((s, t) => s + gdh(t), 0),
    gdd: dd(gddBase),
    winkler: dd(10),
    frost_hours: known.filter((t) => t < 0).length,
  };
  const complete = known.length >= 0.9 * hrs.length;
  return {
    values: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, complete ? x : null])),
    used: known.length,
    expected: hrs.length,
  };
}

const INDICES = [
  'chill_portions',
  'utah_chill_units',
  'dpcu',
  'chilling_hours',
  'gdh',
  'gdd',
  'winkler',
  'frost_hours',
];
type PointAnswer = Record<
  string,
  {
    metadata: { hours_from: string | null; distance_from_point_m: number; station_lat: number; station_lon: number };
    indices: Record<string, { unit: string; periods: Record<string, IndexPeriod> }>;
  }
>;

/** The station the oracle picks for a point: the nearest with any hourly temperature in the window (ties by id). */
function nearestWithHours(lon: number, lat: number, a: number, b: number): OStation {
  const has = (s: OStation) =>
    [...(hourly.get(s.id) ?? [])].some(
      ([k, v]) => v.temperature_mean !== null && dayOf(k.slice(0, 10)) >= a && dayOf(k.slice(0, 10)) <= b,
    );
  return stations
    .filter(has)
    .map((s) => ({ s, d: distance(lon, lat, s.lon, s.lat) }))
    .sort((x, y) => x.d - y.d || (x.s.id < y.s.id ? -1 : 1))[0]!.s;
}

describe('station-indices over the fixture, against the oracle', () => {
  it('points: every index over a window equals the oracle on the input CSV', async () => {
    const pts = stations.slice(0, 6).map((s) => [s.lon + 0.013, s.lat - 0.007] as const);
    const [startDate, endDate] = ['2024-01-15', '2024-03-10'];
    const a = dayOf(startDate);
    const b = dayOf(endDate);
    const res = (await engine.stationIndices({
      wkts: pts.map(([x, y]) => `POINT (${x} ${y})`).join(';'),
      indices: INDICES,
      startDate,
      endDate,
    })) as PointAnswer;
    let compared = 0;
    for (const [x, y] of pts) {
      const ans = res[`POINT (${x} ${y})`]!;
      const s = nearestWithHours(x, y, a, b);
      expect([ans.metadata.station_lon, ans.metadata.station_lat]).toEqual([s.lon, s.lat]);
      expect(ans.metadata.hours_from).toBe('hourly');
      const o = oracle(s.id, a, b);
      for (const name of INDICES) {
        const p = ans.indices[name]!.periods[`${startDate}/${endDate}`]!;
        expect(p.hours_expected).toBe(o.expected);
        expect(p.hours_used, `${s.id} ${name}`).toBe(o.used);
        const want = o.values[name]!;
        if (want === null) expect(p.value).toBeNull();
        else {
          expect(p.value, `${s.id} ${name}`).toBeCloseTo(want, 3);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('by season: one period per season overlapping the window, clipped to it, each equal to the oracle', async () => {
    const s = stations[2]!;
    const res = (await engine.stationIndices({
      wkts: `POINT (${s.lon} ${s.lat})`,
      indices: ['gdh', 'chilling_hours'],
      startDate: '2024-01-10',
      endDate: '2024-03-31',
      options: { by: 'season', heatSeason: '02-01/02-29', chillSeason: '12-20/01-31' },
    })) as PointAnswer;
    const ans = res[`POINT (${s.lon} ${s.lat})`]!;
    expect(ans.metadata.distance_from_point_m).toBe(0);
    expect(Object.keys(ans.indices.gdh!.periods)).toEqual(['2024-02-01/2024-02-29']);
    // The chill season 2023-12-20 – 2024-01-31 overlaps the window from 01-10: clipped.
    expect(Object.keys(ans.indices.chilling_hours!.periods)).toEqual(['2024-01-10/2024-01-31']);
    expect(ans.indices.gdh!.periods['2024-02-01/2024-02-29']!.value).toBeCloseTo(
      oracle(s.id, dayOf('2024-02-01'), dayOf('2024-02-29')).values.gdh!,
      3,
    );
    expect(ans.indices.chilling_hours!.periods['2024-01-10/2024-01-31']!.hours_expected).toBe(22 * 24);
  });

  it('gaps: filled up to options.maxGapHours and counted; below options.minCompleteness the value is null with the reason', async () => {
    // The station with the most hours in short gaps (≤ 72 h) in the fixture's window.
    const missing = (id: string) =>
      [...hoursOf(id, dayOf('2024-01-01'), dayOf('2024-03-31'), 0)].filter(Number.isNaN).length;
    const fillable = (id: string) => fill(hoursOf(id, dayOf('2024-01-01'), dayOf('2024-03-31'), 3), 72);
    const s = [...stations].sort((x, y) => fillable(y.id) - fillable(x.id))[0]!;
    expect(fillable(s.id)).toBeGreaterThan(0);
    const ask = async (options: Record<string, unknown>) =>
      (
        (await engine.stationIndices({
          wkts: `POINT (${s.lon} ${s.lat})`,
          indices: ['frost_hours', 'gdh'],
          startDate: '2024-01-01',
          endDate: '2024-03-31',
          options,
        })) as PointAnswer
      )[`POINT (${s.lon} ${s.lat})`]!.indices.gdh!.periods['2024-01-01/2024-03-31']!;
    const none = await ask({ maxGapHours: 0 });
    const wide = await ask({ maxGapHours: 72 });
    expect(none.hours_filled).toBe(0);
    expect(none.hours_missing).toBe(missing(s.id));
    expect(wide.hours_filled).toBeGreaterThan(0);
    expect(wide.hours_used).toBe(none.hours_used + wide.hours_filled);
    expect(wide.value).toBeCloseTo(oracle(s.id, dayOf('2024-01-01'), dayOf('2024-03-31'), 72).values.gdh!, 3);
    const strict = await ask({ minCompleteness: 1, maxGapHours: 0 });
    expect(strict.value).toBeNull();
    expect(strict.reason).toMatch(/Only \d+ of 2184 hours .* 100 %/);
  });

  it('a window outside every record: null values that say why, never zeros', async () => {
    const res = (await engine.stationIndices({
      wkts: 'POINT (19.3 -33.4)',
      indices: ['chill_portions', 'frost_days'],
      startDate: '2030-05-01',
      endDate: '2030-06-30',
    })) as PointAnswer;
    const ans = res['POINT (19.3 -33.4)']!;
    expect(ans.metadata.hours_from).toBeNull();
    const p = ans.indices.chill_portions!.periods['2030-05-01/2030-06-30']!;
    expect(p).toMatchObject({ value: null, hours_used: 0, hours_missing: 61 * 24 });
    expect(p.reason).toMatch(/no temperature/);
    expect(ans.indices.frost_days!.periods['2030-05-01/2030-06-30']!.months).toEqual({
      '2030-05': null,
      '2030-06': null,
    });
  });

  it('a polygon: each index the mean over the stations inside with a value (a second method: one point query per station)', async () => {
    const box = 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))';
    const ring = [
      [18.2, -34.5],
      [20.5, -34.5],
      [20.5, -32.5],
      [18.2, -32.5],
      [18.2, -34.5],
    ] as [number, number][];
    const body = { indices: ['gdd', 'utah_chill_units'], startDate: '2024-02-01', endDate: '2024-02-29' };
    const res = (await engine.stationIndices({ wkts: box, ...body })) as Extract<
      StationIndicesResponse,
      { stations_metadata: unknown }
    >;
    const inside = stations.filter((s) => insideOrOn([s.lon, s.lat], [ring])).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(inside.length).toBeGreaterThan(2);
    const label = '2024-02-01/2024-02-29';
    for (const name of body.indices) {
      const per: number[] = [];
      for (let i = 0; i < inside.length; i += 10) {
        const chunk = inside.slice(i, i + 10);
        const r = (await engine.stationIndices({
          wkts: chunk.map((s) => `POINT (${s.lon} ${s.lat})`).join(';'),
          ...body,
        })) as PointAnswer;
        for (const s of chunk) {
          const p = r[`POINT (${s.lon} ${s.lat})`]!;
          if (p.metadata.distance_from_point_m === 0 && p.indices[name]!.periods[label]!.value !== null)
            per.push(p.indices[name]!.periods[label]!.value!);
        }
      }
      const mean = res.indices[name]!.periods[label]!;
      expect(mean.station_count).toBe(per.length);
      expect(mean.value).toBeCloseTo(per.reduce((a, b) => a + b, 0) / per.length, 3);
    }
    expect(Object.keys(res.stations_metadata).length).toBeGreaterThanOrEqual(
      res.indices.gdd!.periods[label]!.station_count!,
    );
  });

  it('bad input: a 400 naming the field, before any read', async () => {
    const base = { wkts: 'POINT (19 -33)', indices: ['gdd'], startDate: '2024-01-01', endDate: '2024-02-01' };
    await expectError(
      engine.stationIndices({ ...base, indices: ['chill'] } as never),
      'unknown_data_type',
      '/indices/0',
    );
    await expectError(engine.stationIndices({ ...base, startDate: '2024-02-30' }), 'invalid_date', '/startDate');
    await expectError(engine.stationIndices({ ...base, endDate: '2050-01-01' }), 'too_many_periods', '/endDate');
    await expectError(
      engine.stationIndices({ ...base, options: { chillSeason: '04-01/09-31' } }),
      'invalid_field',
      '/options/chillSeason',
    );
    await expectError(
      engine.stationIndices({ ...base, options: { crop: 'apples', gddBase: 4.5 } }),
      'invalid_field',
      '/options/gddBase',
    );
    await expectError(
      engine.stationIndices({ ...base, options: { maxGapHours: 1.5 } }),
      'invalid_field',
      '/options/maxGapHours',
    );
    await expectError(
      engine.stationIndices({ ...base, options: { minCompleteness: 0.2 } }),
      'invalid_field',
      '/options/minCompleteness',
    );
    await expectError(
      engine.stationIndices({
        ...base,
        wkts: 'POLYGON ((18 -34, 19 -34, 19 -33, 18 -34));POLYGON ((20 -34, 21 -34, 21 -33, 20 -34))',
      }),
      'limit_exceeded',
      '/wkts',
    );
    await expectError(
      engine.stationIndices({ ...base, options: { by: 'month' } } as never),
      'invalid_field',
      '/options/by',
    );
  });
});

describe('station-indices: the library, serve and the CLI answer byte for byte alike', () => {
  it('one answer text through handle(), `serve` over HTTP, `query station-indices` and `indices`', async () => {
    const s = stations[1]!;
    const body = {
      wkts: `POINT (${s.lon + 0.01} ${s.lat});POINT (19.3 -33.4)`,
      indices: ['chill_portions', 'frost_days_1', 'gdd'],
      startDate: '2024-01-01',
      endDate: '2024-03-31',
      options: { by: 'season', chillSeason: '02-01/03-15', crop: 'apples' },
    };
    const lib = await engine.handle({ method: 'POST', path: '/api/station-indices/', body: JSON.stringify(body) });
    expect(lib.status).toBe(200);
    const libText = JSON.stringify(lib.body);
    let server: RunningServer | undefined;
    try {
      server = await startServer({ engine, port: 0 });
      const http = await fetch(new URL('api/station-indices/', server.url), {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(http.status).toBe(200);
      expect(await http.text()).toBe(libText);
    } finally {
      await server?.close();
    }
    const viaQuery = await cli(['query', 'station-indices', '-', '--data', fx.dataset], JSON.stringify(body));
    expect(viaQuery.code).toBe(0);
    expect(viaQuery.stdout.trim()).toBe(libText);
    const viaIndices = await cli([
      'indices',
      body.wkts,
      '--indices',
      body.indices.join(','),
      '--from',
      body.startDate,
      '--to',
      body.endDate,
      '--by',
      'season',
      '--chill-season',
      '02-01/03-15',
      '--crop',
      'apples',
      '--data',
      fx.dataset,
    ]);
    expect(viaIndices.code, viaIndices.stderr).toBe(0);
    expect(viaIndices.stdout.trim()).toBe(libText);
    const bad = await cli([
      'indices',
      'POINT (19 -33)',
      '--indices',
      'gdd',
      '--from',
      '2024-01-01',
      '--to',
      '2024-02-01',
      '--max-gap-hours',
      'many',
      '--data',
      fx.dataset,
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'invalid_field', field: '/options/maxGapHours' } });
  });
});
