/**
 * The scale bench's independent answers: what a query must answer,
 * computed from the generated *input* files (stations CSV, observations
 * Parquet) with native DuckDB SQL and GeographicLib — not from the built
 * archive, and with none of the engine's code. Comparing the engine's answer
 * with these checks the build (derivation-free for these scales, so values
 * must be the inputs' own) and the reader together.
 *
 * nearest-station: per point, the geodesically nearest station that has a
 * value of a requested type in the range (ties by id), `actual_nearest`
 * against every station, every period of the range with the input's value
 * or null. poly-aggregate (axis-aligned squares only, so "inside, boundary
 * inclusive" is a BETWEEN): the stations inside with a value in the range,
 * by id, and per period and type SQL's `avg` and `count` over the stations
 * that have a value, the mean rounded to the contract's documented
 * precision (two decimals finer than a reading, half away from zero; the
 * only contract fact used here).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import * as geographiclib from 'geographiclib-geodesic';
import { stationMeanDecimals } from '../src/contract/station-type-info.ts';
import type { NearestStationResponse, PeriodValues, PolyAggregateResponse } from '../src/contract/types.ts';
import type { ScaleInputFiles } from './scale-inputs.ts';

const { Geodesic } = ((geographiclib as unknown as { default?: typeof geographiclib }).default ??
  geographiclib) as typeof geographiclib;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const KEY = { hourly: '%Y-%m-%dT%H:%M:%S', daily: '%Y-%m-%d' } as const;
const STEP = { hourly: 'INTERVAL 1 HOUR', daily: 'INTERVAL 1 DAY' } as const;

/** A station query as the verifier needs it. */
export interface VerifyQuery {
  wkts: string;
  dataTypes: string[];
  scale: 'hourly' | 'daily';
  /** First and last period, SQL timestamps ('2023-01-01 00:00:00'). */
  start: string;
  end: string;
}

async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The observations of the range, with each row's period key, as a SQL relation. */
function inRange(inputs: ScaleInputFiles, q: VerifyQuery): string {
  return `(SELECT station_id, strftime(CAST(time AS TIMESTAMP), '${KEY[q.scale]}') AS k, ${q.dataTypes.map((t) => `CAST("${t}" AS DOUBLE) AS "${t}"`).join(', ')}
    FROM read_parquet(${lit(inputs.observations)})
    WHERE CAST(time AS TIMESTAMP) BETWEEN TIMESTAMP ${lit(q.start)} AND TIMESTAMP ${lit(q.end)})`;
}

const anyValue = (q: VerifyQuery) => q.dataTypes.map((t) => `"${t}" IS NOT NULL`).join(' OR ');

async function periodKeys(con: DuckDBConnection, q: VerifyQuery): Promise<string[]> {
  return (
    await rows(
      con,
      `SELECT strftime(t, '${KEY[q.scale]}') AS k FROM (SELECT unnest(range(TIMESTAMP ${lit(q.start)}, TIMESTAMP ${lit(q.end)} + ${STEP[q.scale]}, ${STEP[q.scale]})) AS t) ORDER BY t`,
    )
  ).map((r) => String(r.k));
}

/** The nearest-station answer for `q`, from the input files. */
export async function expectedNearest(
  con: DuckDBConnection,
  inputs: ScaleInputFiles,
  q: VerifyQuery,
): Promise<NearestStationResponse> {
  const stations = await rows(
    con,
    `SELECT station_id, lat, lon, elevation FROM read_csv(${lit(inputs.stations)}, header = true) ORDER BY station_id`,
  );
  const active = new Set(
    (await rows(con, `SELECT DISTINCT station_id FROM ${inRange(inputs, q)} WHERE ${anyValue(q)}`)).map((r) =>
      String(r.station_id),
    ),
  );
  const keys = await periodKeys(con, q);
  const out: NearestStationResponse = {};
  for (const wkt of q.wkts.split(';')) {
    const m = /^POINT \(([-\d.]+) ([-\d.]+)\)$/.exec(wkt.trim());
    if (!m) throw new Error(`verifier takes POINT (x y) only, got ${wkt}`);
    const [x, y] = [Number(m[1]), Number(m[2])];
    const ranked = stations
      .map((s) => ({ s, d: Geodesic.WGS84.Inverse(y, x, Number(s.lat), Number(s.lon), Geodesic.DISTANCE).s12! }))
      .sort((a, b) => a.d - b.d || (String(a.s.station_id) < String(b.s.station_id) ? -1 : 1));
    const chosen = ranked.find((r) => active.has(String(r.s.station_id))) ?? ranked[0]!;
    const byKey = new Map<string, Record<string, unknown>>();
    if (active.has(String(chosen.s.station_id))) {
      for (const r of await rows(
        con,
        `SELECT * FROM ${inRange(inputs, q)} WHERE station_id = ${lit(String(chosen.s.station_id))}`,
      ))
        byKey.set(String(r.k), r);
    }
    const data: Record<string, PeriodValues> = {};
    for (const k of keys) {
      const r = byKey.get(k);
      const v: PeriodValues = {};
      for (const t of q.dataTypes) v[t] = r ? num(r[t]) : null;
      data[k] = v;
    }
    out[wkt.trim()] = {
      metadata: {
        station_lat: Number(chosen.s.lat),
        station_lon: Number(chosen.s.lon),
        station_elevation: num(chosen.s.elevation),
        distance_from_point_m: Math.round(chosen.d * 1000) / 1000,
        actual_nearest: chosen.d <= ranked[0]!.d,
      },
      data,
    };
  }
  return out;
}

/** The poly-aggregate answer for `q` (one axis-aligned square), from the input files. */
export async function expectedPolyAggregate(
  con: DuckDBConnection,
  inputs: ScaleInputFiles,
  q: VerifyQuery,
): Promise<PolyAggregateResponse> {
  const coords = [...q.wkts.matchAll(/(-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
  const xs = coords.map((c) => c[0]);
  const ys = coords.map((c) => c[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (coords.length !== 5 || !coords.every(([x, y]) => (x === x0 || x === x1) && (y === y0 || y === y1)))
    throw new Error('verifier takes an axis-aligned square only');
  const inside = await rows(
    con,
    `SELECT station_id, lat, lon, elevation FROM read_csv(${lit(inputs.stations)}, header = true)
     WHERE lon BETWEEN ${x0} AND ${x1} AND lat BETWEEN ${y0} AND ${y1}
       AND station_id IN (SELECT station_id FROM ${inRange(inputs, q)} WHERE ${anyValue(q)})
     ORDER BY station_id`,
  );
  const stations_metadata: PolyAggregateResponse['stations_metadata'] = {};
  inside.forEach(
    (s, i) =>
      (stations_metadata[String(i)] = {
        station_lat: Number(s.lat),
        station_lon: Number(s.lon),
        station_elevation: num(s.elevation),
      }),
  );
  const ids = inside.map((s) => lit(String(s.station_id)));
  const agg = ids.length
    ? await rows(
        con,
        `SELECT k, ${q.dataTypes.map((t) => `round(round(avg("${t}"), 9), ${stationMeanDecimals(q.scale, t)}) AS "${t}", count("${t}") AS "${t}_station_count"`).join(', ')} FROM ${inRange(inputs, q)} WHERE station_id IN (${ids.join(', ')}) GROUP BY k`,
      )
    : [];
  const byKey = new Map(agg.map((r) => [String(r.k), r]));
  const aggregated_data: Record<string, PeriodValues> = {};
  for (const k of await periodKeys(con, q)) {
    const r = byKey.get(k);
    const v: PeriodValues = {};
    for (const t of q.dataTypes) {
      v[t] = r ? num(r[t]) : null;
      v[`${t}_station_count`] = r ? Number(r[`${t}_station_count`]) : 0;
    }
    aggregated_data[k] = v;
  }
  return { stations_metadata, aggregated_data };
}
