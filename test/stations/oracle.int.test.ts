// Hundreds of randomized station requests answered by the engine (reading the
// Parquet archive from local files, and over HTTP Range requests from a real
// static server, as in the browser) and by the independent oracle.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { STATION_TYPES, type StationTimeScale } from '../../src/contract/station-data-types.ts';
import { parseRange } from '../../src/contract/periods.ts';
import { roundValue, stationMeanDecimals } from '../../src/contract/station-type-info.ts';
import { mulberry32 as rng } from '../../src/builder/prng.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { allScales, distance, insideOrOn, readHourly, readStations, type OStation, type Series } from './oracle.ts';

const fx = inject('stationFixture');
let stations: OStation[];
let series: Record<StationTimeScale, Series>;
const engines: Record<'http' | 'file', ClimateEngine> = {} as never;
let server: RangeServer;

beforeAll(async () => {
  stations = readStations(fx.stationsCsv);
  series = allScales(stations, readHourly(fx.hourlyCsv));
  server = await startRangeServer(fx.dataset);
  engines.http = createNodeEngine(server.url);
  engines.file = createNodeEngine(fx.dataset);
});
afterAll(async () => {
  await engines.http.close();
  await engines.file.close();
  await server.close();
});

/**
 * No number in an answer carries binary float noise (5.3999999999999995): at most three decimals, the
 * finest the precision rule gives (a mean over stations of a 0.1 °C type), as JSON writes it.
 */
function expectNoFloatNoise(answer: unknown): void {
  const noisy = JSON.stringify(answer ?? null).match(/-?\d+\.\d{4,}/g);
  if (noisy) throw new Error(`values with float noise in the answer: ${noisy.slice(0, 5).join(', ')}`);
}

/** Deep equality with a relative tolerance on numbers; key order must match too. */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tol = path.endsWith('distance_from_point_m') ? 1e-3 : 1e-9 * Math.max(1, Math.abs(expected));
    if (Math.abs(actual - expected) > tol) throw new Error(`${path}: ${actual} ≠ ${expected}`);
    return;
  }
  if (expected === null || typeof expected !== 'object') {
    if (actual !== expected) throw new Error(`${path}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
    return;
  }
  if (typeof actual !== 'object' || actual === null) throw new Error(`${path}: got ${JSON.stringify(actual)}`);
  const ak = Object.keys(actual);
  const ek = Object.keys(expected);
  if (ak.join('|') !== ek.join('|'))
    throw new Error(`${path}: keys ${ak.slice(0, 8).join(',')}… ≠ ${ek.slice(0, 8).join(',')}…`);
  for (const k of ek)
    expectClose((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
}

interface Req {
  wkts: string;
  dataTypes: string[];
  options: { timeScale: StationTimeScale };
  startDate: string;
  endDate: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function randomRange(r: () => number, scale: StationTimeScale): [string, string] {
  if (scale === 'hourly') {
    const start = Date.UTC(2023, 11, 30) + Math.floor(r() * 96 * 24) * 3_600_000;
    const end = start + Math.floor(r() * 72) * 3_600_000;
    const f = (t: number) => new Date(t).toISOString().slice(0, 19);
    return [f(start), f(end)];
  }
  if (scale === 'daily') {
    const start = Date.UTC(2023, 11, 25) + Math.floor(r() * 100) * 86_400_000;
    const end = start + Math.floor(r() * 40) * 86_400_000;
    const f = (t: number) => new Date(t).toISOString().slice(0, 10);
    return [f(start), f(end)];
  }
  if (scale === 'dekadal') {
    // Dekads written by hand: day 01, 11 or 21 of a month, from late 2023 into 2024.
    const d0 = (2023 * 12 + 10) * 3 + Math.floor(r() * 18);
    const d1 = d0 + Math.floor(r() * 10);
    const f = (d: number) => `${Math.floor(d / 36)}-${pad((Math.floor(d / 3) % 12) + 1)}-${['01', '11', '21'][d % 3]}`;
    return [f(d0), f(d1)];
  }
  const m0 = 2023 * 12 + 10 + Math.floor(r() * 6);
  const m1 = m0 + Math.floor(r() * 4);
  const f = (m: number) => `${Math.floor(m / 12)}-${pad((m % 12) + 1)}`;
  return [f(m0), f(m1)];
}

function randomTypes(r: () => number, scale: StationTimeScale): string[] {
  const names = [...STATION_TYPES[scale]];
  const n = 1 + Math.floor(r() * 5);
  const out: string[] = [];
  while (out.length < n) {
    const t = names[Math.floor(r() * names.length)]!;
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

const fmt = (x: number) => String(Math.round(x * 1e5) / 1e5);

function randomPoint(r: () => number): string {
  if (r() < 0.2) {
    const s = stations[Math.floor(r() * stations.length)]!;
    return `POINT (${s.lon} ${s.lat})`;
  }
  return `POINT (${fmt(17.5 + r() * 7.5)} ${fmt(-35 + r() * 5.5)})`;
}

function randomPolygon(r: () => number): string {
  const rect = (x: number, y: number, w: number, h: number) =>
    `(${x} ${y}, ${fmt(x + w)} ${y}, ${fmt(x + w)} ${fmt(y + h)}, ${x} ${fmt(y + h)}, ${x} ${y})`;
  const x = Number(fmt(17.5 + r() * 6));
  const y = Number(fmt(-35 + r() * 4.5));
  const w = 0.2 + r() * 2.5;
  const h = 0.2 + r() * 2.5;
  const kind = r();
  if (kind < 0.15) {
    // A triangle with a vertex exactly on a station: the boundary counts as inside.
    const s = stations[Math.floor(r() * stations.length)]!;
    return `POLYGON ((${s.lon} ${s.lat}, ${fmt(s.lon + w)} ${fmt(s.lat - h / 2)}, ${fmt(s.lon + w / 2)} ${fmt(s.lat + h)}, ${s.lon} ${s.lat}))`;
  }
  if (kind < 0.3)
    return `POLYGON (${rect(x, y, w, h)}, ${rect(Number(fmt(x + w / 4)), Number(fmt(y + h / 4)), w / 2, h / 2)})`;
  if (kind < 0.45) return `MULTIPOLYGON ((${rect(x, y, w / 2, h / 2)}), (${rect(Number(fmt(x + w)), y, w / 2, h)}))`;
  if (kind < 0.55) {
    // Concave: an L shape.
    const [x1, y1, x2, y2, x3, y3] = [fmt(x + w), fmt(y + h / 3), fmt(x + w / 3), fmt(y + h), x, y].map(String);
    return `POLYGON ((${x} ${y}, ${x1} ${y}, ${x1} ${y1}, ${x2} ${y1}, ${x2} ${y2}, ${x} ${y2}, ${x3} ${y3}))`;
  }
  return `POLYGON (${rect(x, y, w, h)})`;
}

function periodsOf(req: Req): string[] {
  return parseRange(req.options.timeScale, req.startDate, req.endDate).keys;
}

function hasData(id: string, req: Req, keys: string[]): boolean {
  const rows = series[req.options.timeScale].get(id);
  if (!rows) return false;
  return keys.some((k) => req.dataTypes.some((t) => (rows.get(k)?.[t] ?? null) !== null));
}

function oracleNearest(req: Req): unknown {
  const keys = periodsOf(req);
  const out: Record<string, unknown> = {};
  for (const text of req.wkts.split(';').map((s) => s.trim())) {
    const [lon, lat] = text
      .replace(/POINT \(|\)/g, '')
      .split(' ')
      .map(Number) as [number, number];
    const ranked = stations
      .map((s) => ({ s, d: distance(lon, lat, s.lon, s.lat) }))
      .sort((a, b) => a.d - b.d || (a.s.id < b.s.id ? -1 : 1));
    const pick = ranked.find((x) => hasData(x.s.id, req, keys)) ?? ranked[0]!;
    const rows = series[req.options.timeScale].get(pick.s.id);
    const data: Record<string, Record<string, number | null>> = {};
    for (const k of keys) data[k] = Object.fromEntries(req.dataTypes.map((t) => [t, rows?.get(k)?.[t] ?? null]));
    out[text] = {
      metadata: {
        station_lat: pick.s.lat,
        station_lon: pick.s.lon,
        station_elevation: pick.s.elevation,
        distance_from_point_m: pick.d,
        actual_nearest: pick.d <= ranked[0]!.d,
      },
      data,
    };
  }
  return out;
}

function ringsOf(wkt: string): [number, number][][][] {
  const parts = wkt.startsWith('MULTIPOLYGON')
    ? wkt.slice(wkt.indexOf('((') + 1, -1).split(/\)\)\s*,\s*\(\(/)
    : [wkt.slice(wkt.indexOf('(') + 1, -1)];
  return parts.map((p) =>
    p
      .replace(/^\(+|\)+$/g, '')
      .split(/\)\s*,\s*\(/)
      .map((ring) => ring.split(',').map((xy) => xy.trim().split(/\s+/).map(Number) as [number, number])),
  );
}

function oraclePoly(req: Req): unknown {
  const keys = periodsOf(req);
  const polys = ringsOf(req.wkts.trim());
  const inside = stations
    .filter((s) => polys.some((rings) => insideOrOn([s.lon, s.lat], rings)) && hasData(s.id, req, keys))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const stations_metadata = Object.fromEntries(
    inside.map((s, i) => [String(i), { station_lat: s.lat, station_lon: s.lon, station_elevation: s.elevation }]),
  );
  const aggregated_data: Record<string, Record<string, number | null>> = {};
  for (const k of keys) {
    const v: Record<string, number | null> = {};
    for (const t of req.dataTypes) {
      const xs = inside
        .map((s) => series[req.options.timeScale].get(s.id)?.get(k)?.[t] ?? null)
        .filter((x): x is number => x !== null);
      // Answered two decimals finer than a reading (docs/data.md, "Units and precision").
      v[t] = xs.length
        ? roundValue(xs.reduce((a, b) => a + b, 0) / xs.length, stationMeanDecimals(req.options.timeScale, t))
        : null;
      v[`${t}_station_count`] = xs.length;
    }
    aggregated_data[k] = v;
  }
  return { stations_metadata, aggregated_data };
}

const SCALES: StationTimeScale[] = ['hourly', 'daily', 'dekadal', 'monthly'];

function makeRequests(seed: number, n: number, poly: boolean): Req[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const scale = SCALES[i % SCALES.length]!;
    const [startDate, endDate] = randomRange(r, scale);
    const wkts = poly
      ? randomPolygon(r)
      : [...new Set(Array.from({ length: 1 + Math.floor(r() * 10) }, () => randomPoint(r)))].join(';');
    return { wkts, dataTypes: randomTypes(r, scale), options: { timeScale: scale }, startDate, endDate };
  });
}

describe.each(['http', 'file'] as const)('station endpoints read over %s equal the oracle', (backend) => {
  const n = backend === 'http' ? 150 : 60;

  it(`nearest-station: ${n} random requests across hourly, daily, dekadal, monthly`, async () => {
    let passedOver = 0;
    let periods = 0;
    for (const req of makeRequests(backend === 'http' ? 1 : 2, n, false)) {
      const got = await engines[backend].nearestStation(req);
      const want = oracleNearest(req) as Record<string, { metadata: { actual_nearest: boolean }; data: object }>;
      expectClose(got, want, JSON.stringify(req).slice(0, 160));
      expectNoFloatNoise(Object.values(got).map((v) => v.data));
      for (const v of Object.values(want)) {
        if (!v.metadata.actual_nearest) passedOver++;
        periods += Object.keys(v.data).length;
      }
    }
    // The sample must exercise points whose nearest station lacks data.
    expect(passedOver).toBeGreaterThan(5);
    expect(periods).toBeGreaterThan(1000);
  });

  it(`poly-aggregate: ${n} random polygons (holes, multipart, concave, vertices on stations)`, async () => {
    let withStations = 0;
    let partialCounts = 0;
    for (const req of makeRequests(backend === 'http' ? 3 : 4, n, true)) {
      const got = await engines[backend].polyAggregate(req);
      const want = oraclePoly(req) as {
        stations_metadata: object;
        aggregated_data: Record<string, Record<string, number | null>>;
      };
      expectClose(got, want, JSON.stringify(req).slice(0, 160));
      expectNoFloatNoise(got.aggregated_data);
      const nStations = Object.keys(want.stations_metadata).length;
      if (nStations > 0) withStations++;
      for (const v of Object.values(want.aggregated_data)) {
        for (const t of req.dataTypes)
          if ((v[`${t}_station_count`] ?? 0) > 0 && (v[`${t}_station_count`] ?? 0) < nStations) partialCounts++;
      }
    }
    expect(withStations).toBeGreaterThan(n / 3);
    // Counts below the number of stations happen: the gaps are exercised.
    expect(partialCounts).toBeGreaterThan(10);
  });
});
