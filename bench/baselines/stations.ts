/**
 * The compute floor for station queries: native DuckDB (@duckdb/node-api,
 * multi-threaded, no WASM, no network) over the dataset's Parquet files on
 * local disk, with the SQL a user would write (`station_id IN (…)`, a
 * time range, GROUP BY for poly-aggregate).
 *
 * Which stations to read is decided with the engine's own pure functions
 * over catalog.json (`chooseStation`, `stationsInside`: microseconds), so
 * the comparison is about reading and computing the rows, and the answers
 * can be compared value for value.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlTimeOf } from '../../src/contract/periods.ts';
import type { NearestStationResponse, PeriodValues, PolyAggregateResponse, StationQuery } from '../../src/contract/types.ts';
import type { CatalogStation } from '../../src/dataset/catalog.ts';
import { hasDataIn } from '../../src/stations/coverage.ts';
import { chooseStation, toNumberOrNull } from '../../src/stations/nearest-station.ts';
import { stationsInside } from '../../src/stations/poly-aggregate.ts';
import { OFFLINE_SETTINGS } from '../../src/stations/sql-backend.ts';

const KEY_FORMAT = { hourly: '%Y-%m-%dT%H:%M:%S', daily: '%Y-%m-%d', monthly: '%Y-%m-01' } as const;
const TIME_TYPE = { hourly: 'TIMESTAMP', daily: 'DATE', monthly: 'DATE' } as const;

/** An open native DuckDB with a connection. */
export interface NativeDuckDB {
  con: DuckDBConnection;
  close(): void;
}

/** Starts native DuckDB in memory (the Parquet files are read by path per query). */
export async function openNative(): Promise<NativeDuckDB> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  for (const s of OFFLINE_SETTINGS) await con.run(s);
  return {
    con,
    close() {
      con.closeSync();
      db.closeSync();
    },
  };
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

/** nearest-station over `<parquetDir>/<scale>.parquet`. */
export async function nativeNearestStation(con: DuckDBConnection, parquetDir: string, q: StationQuery, stations: readonly CatalogStation[]): Promise<NearestStationResponse> {
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  const choices = q.geometries.map((g) => (g.kind === 'point' ? chooseStation(stations, g.position, q) : null));
  const ids = [...new Set(choices.filter((c) => c && hasDataIn(c.station, q.timeScale, q.dataTypes, first, last)).map((c) => c!.station.id))];
  const byStation = new Map<string, Map<string, PeriodValues>>();
  if (ids.length) {
    const t = TIME_TYPE[q.timeScale];
    const sql = `SELECT station_id, strftime(time, '${KEY_FORMAT[q.timeScale]}') AS period, ${q.dataTypes.map((d) => `"${d}"`).join(', ')}
      FROM read_parquet(${quote(`${parquetDir}/${q.timeScale}.parquet`)})
      WHERE station_id IN (${ids.map(quote).join(', ')})
        AND time BETWEEN CAST(${quote(sqlTimeOf(q.timeScale, q.range.start))} AS ${t}) AND CAST(${quote(sqlTimeOf(q.timeScale, q.range.end))} AS ${t})`;
    for (const row of await rows(con, sql)) {
      const values: PeriodValues = {};
      for (const d of q.dataTypes) values[d] = toNumberOrNull(row[d]);
      const id = String(row.station_id);
      let m = byStation.get(id);
      if (!m) byStation.set(id, (m = new Map()));
      m.set(String(row.period), values);
    }
  }
  const out: NearestStationResponse = {};
  q.geometries.forEach((g, i) => {
    const choice = choices[i];
    if (!choice) return;
    const found = byStation.get(choice.station.id);
    const data: Record<string, PeriodValues> = {};
    for (const key of q.range.keys) {
      const v = found?.get(key);
      const values: PeriodValues = {};
      for (const d of q.dataTypes) values[d] = v ? (v[d] ?? null) : null;
      data[key] = values;
    }
    out[g.key] = {
      metadata: {
        station_lat: choice.station.lat,
        station_lon: choice.station.lon,
        station_elevation: choice.station.elevation,
        distance_from_point_m: Math.round(choice.distanceM * 1000) / 1000,
        actual_nearest: choice.actualNearest,
      },
      data,
    };
  });
  return out;
}

/** poly-aggregate over `<parquetDir>/<scale>.parquet`. */
export async function nativePolyAggregate(con: DuckDBConnection, parquetDir: string, q: StationQuery, stations: readonly CatalogStation[]): Promise<PolyAggregateResponse> {
  const inside = stationsInside(q, stations);
  const byPeriod = new Map<string, Record<string, unknown>>();
  if (inside.length) {
    const t = TIME_TYPE[q.timeScale];
    const aggs = q.dataTypes.map((d) => `avg("${d}") AS "${d}", count("${d}") AS "${d}__n"`).join(', ');
    const sql = `SELECT strftime(time, '${KEY_FORMAT[q.timeScale]}') AS period, ${aggs}
      FROM read_parquet(${quote(`${parquetDir}/${q.timeScale}.parquet`)})
      WHERE station_id IN (${inside.map((s) => quote(s.id)).join(', ')})
        AND time BETWEEN CAST(${quote(sqlTimeOf(q.timeScale, q.range.start))} AS ${t}) AND CAST(${quote(sqlTimeOf(q.timeScale, q.range.end))} AS ${t})
      GROUP BY period`;
    for (const row of await rows(con, sql)) byPeriod.set(String(row.period), row);
  }
  const stations_metadata: PolyAggregateResponse['stations_metadata'] = {};
  inside.forEach((s, i) => {
    stations_metadata[String(i)] = { station_lat: s.lat, station_lon: s.lon, station_elevation: s.elevation };
  });
  const aggregated_data: Record<string, PeriodValues> = {};
  for (const key of q.range.keys) {
    const row = byPeriod.get(key);
    const values: PeriodValues = {};
    for (const d of q.dataTypes) {
      const n = row ? (toNumberOrNull(row[`${d}__n`]) ?? 0) : 0;
      values[d] = n > 0 ? toNumberOrNull(row![d]) : null;
      values[`${d}_station_count`] = n;
    }
    aggregated_data[key] = values;
  }
  return { stations_metadata, aggregated_data };
}
