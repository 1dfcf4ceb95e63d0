// The decisions docs/contract.md and docs/data.md record for station queries,
// each checked against the input files directly.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { readHourly, readStations, type OStation, type Series } from './oracle.ts';

const fx = inject('stationFixture');
let engine: ClimateEngine;
let stations: OStation[];
let hourly: Series;

beforeAll(() => {
  engine = createNodeEngine(fx.dataset);
  stations = readStations(fx.stationsCsv);
  hourly = readHourly(fx.hourlyCsv);
});
afterAll(() => engine.close());

const base = {
  dataTypes: ['temperature_mean'],
  options: { timeScale: 'daily' as const },
  startDate: '2024-01-01',
  endDate: '2024-01-03',
};

describe('station decisions', () => {
  it('when no station has data in the range, answers the nearest station with every value null', async () => {
    const s = stations[5]!;
    const wkt = `POINT (${s.lon + 0.001} ${s.lat})`;
    const res = await engine.nearestStation({ ...base, wkts: wkt, startDate: '2031-01-01', endDate: '2031-01-02' });
    const v = res[wkt]!;
    expect(v.metadata.actual_nearest).toBe(true);
    expect(v.data).toEqual({ '2031-01-01': { temperature_mean: null }, '2031-01-02': { temperature_mean: null } });
    const nearest = stations
      .map((x) => Math.hypot(x.lon - s.lon - 0.001, x.lat - s.lat))
      .indexOf(Math.min(...stations.map((x) => Math.hypot(x.lon - s.lon - 0.001, x.lat - s.lat))));
    expect([v.metadata.station_lon, v.metadata.station_lat]).toEqual([stations[nearest]!.lon, stations[nearest]!.lat]);
  });

  it('keys the answer by each WKT text as sent, trimmed, in request order', async () => {
    const res = await engine.nearestStation({ ...base, wkts: '  POINT (19.5 -33.5);point(18.9 -34.0)  ' });
    expect(Object.keys(res)).toEqual(['POINT (19.5 -33.5)', 'point(18.9 -34.0)']);
  });

  it('a point exactly on a station has distance 0', async () => {
    const s = stations[0]!;
    const res = await engine.nearestStation({
      ...base,
      wkts: `POINT (${s.lon} ${s.lat})`,
      startDate: '2024-02-01',
      endDate: '2024-02-01',
    });
    const v = Object.values(res)[0]!;
    if (v.metadata.actual_nearest) expect(v.metadata.distance_from_point_m).toBe(0);
  });

  it('counts a station on the polygon boundary as inside and orders stations_metadata by station id', async () => {
    const sorted = [...stations].sort((a, b) => (a.id < b.id ? -1 : 1));
    const s = sorted[3]!;
    // A square whose corner is exactly the station.
    const wkt = `POLYGON ((${s.lon} ${s.lat}, ${s.lon + 0.01} ${s.lat}, ${s.lon + 0.01} ${s.lat + 0.01}, ${s.lon} ${s.lat + 0.01}, ${s.lon} ${s.lat}))`;
    const res = await engine.polyAggregate({ ...base, wkts: wkt, startDate: '2024-01-01', endDate: '2024-03-31' });
    const meta = Object.values(res.stations_metadata);
    expect(meta.some((m) => m.station_lat === s.lat && m.station_lon === s.lon)).toBe(true);
    // Everything: ids ascending.
    const all = await engine.polyAggregate({
      ...base,
      wkts: 'POLYGON ((10 -40, 35 -40, 35 -20, 10 -20, 10 -40))',
      startDate: '2024-01-01',
      endDate: '2024-03-31',
    });
    const order = Object.values(all.stations_metadata).map((m) =>
      sorted.findIndex((x) => x.lat === m.station_lat && x.lon === m.station_lon),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(Object.keys(all.stations_metadata)).toEqual(order.map((_, i) => String(i)));
  });

  it('a polygon with no station answers every period with null and count 0', async () => {
    const res = await engine.polyAggregate({
      ...base,
      dataTypes: ['rain_sum', 'et0'],
      wkts: 'POLYGON ((30 -25, 30.1 -25, 30.1 -24.9, 30 -25))',
    });
    expect(res.stations_metadata).toEqual({});
    expect(res.aggregated_data['2024-01-02']).toEqual({
      rain_sum: null,
      rain_sum_station_count: 0,
      et0: null,
      et0_station_count: 0,
    });
    expect(Object.keys(res.aggregated_data)).toEqual(['2024-01-01', '2024-01-02', '2024-01-03']);
  });

  it('derivations, checked by hand on the input rows', async () => {
    // Daily rain_sum is the sum of 24 hourly values; temperature_max the max of hourly maxima; null if an hour is missing.
    let checked = 0;
    for (const s of stations.slice(0, 12)) {
      const rows = hourly.get(s.id);
      if (!rows) continue;
      const day = '2024-02-10';
      const hours = Array.from({ length: 24 }, (_, h) => rows.get(`${day}T${String(h).padStart(2, '0')}:00:00`));
      const rain = hours.map((v) => v?.rain ?? null);
      const tmax = hours.map((v) => v?.temperature_max ?? null).filter((x): x is number => x !== null);
      const res = await engine.polyAggregate({
        dataTypes: ['rain_sum', 'temperature_max', 'solar_radiation_sum'],
        options: { timeScale: 'daily' },
        startDate: day,
        endDate: day,
        wkts: `POLYGON ((${s.lon} ${s.lat}, ${s.lon + 1e-4} ${s.lat}, ${s.lon} ${s.lat + 1e-4}, ${s.lon} ${s.lat}))`,
      });
      const got = res.aggregated_data[day]!;
      if (Object.keys(res.stations_metadata).length !== 1) continue;
      const wantRain = rain.every((x) => x !== null) ? rain.reduce((a, b) => a! + b!, 0)! : null;
      if (wantRain === null) expect(got.rain_sum).toBeNull();
      else expect(got.rain_sum).toBeCloseTo(wantRain, 9);
      if (tmax.length >= 18) expect(got.temperature_max).toBe(Math.max(...tmax));
      else expect(got.temperature_max).toBeNull();
      const rs = hours.map((v) => v?.solar_radation ?? null);
      // MJ/m² written at 2 decimals (docs/data.md, "Units and precision"): within half a hundredth of the exact total.
      if (rs.every((x) => x !== null))
        expect(
          Math.abs(got.solar_radiation_sum! - (rs.reduce((a, b) => a! + b!, 0)! * 3600) / 1e6),
        ).toBeLessThanOrEqual(0.005 + 1e-9);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('no value is ever 0 in place of missing: hourly nulls in the input stay null in the answer', async () => {
    // Find a station-hour with a null temperature in the input.
    let found: { s: OStation; key: string } | undefined;
    for (const s of stations) {
      for (const [key, v] of hourly.get(s.id) ?? []) {
        if (v.temperature_mean === null) {
          found = { s, key };
          break;
        }
      }
      if (found) break;
    }
    expect(found).toBeDefined();
    const { s, key } = found!;
    const res = await engine.polyAggregate({
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'hourly' },
      startDate: key,
      endDate: key,
      wkts: `POLYGON ((${s.lon} ${s.lat}, ${s.lon + 1e-4} ${s.lat}, ${s.lon} ${s.lat + 1e-4}, ${s.lon} ${s.lat}))`,
    });
    expect(res.aggregated_data[key]).toEqual({ temperature_mean: null, temperature_mean_station_count: 0 });
  });
});
