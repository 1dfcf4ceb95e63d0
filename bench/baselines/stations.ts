/**
 * The compute floor for station queries: native DuckDB (@duckdb/node-api,
 * multi-threaded, no WASM, no network) over the dataset's Parquet files on
 * local disk, with the SQL a user would write (`station_id IN (…)`, a
 * time range, GROUP BY for poly-aggregate).
 *
 * Which stations to read, and how rows become the contract's JSON, are the
 * engine's own pure functions (`planNearest`, `stationsInside`, `assemble…`), so
 * the comparison is about reading and computing the rows, and the answers
 * can be compared value for value.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlTimeOf } from '../../src/contract/periods.ts';
import type { NearestStationResponse, PolyAggregateResponse, StationQuery } from '../../src/contract/types.ts';
import type { CatalogStation } from '../../src/dataset/catalog.ts';
import { assembleNearest, planNearest, rowsByStation } from '../../src/stations/nearest-station.ts';
import { assemblePolyAggregate, stationsInside } from '../../src/stations/poly-aggregate.ts';
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
  const { choices, ids } = planNearest(q, stations);
  let found: Record<string, unknown>[] = [];
  if (ids.length) {
    const t = TIME_TYPE[q.timeScale];
    const cols = q.dataTypes.map((d) => `"${d}"`).join(', ');
    const sql = `SELECT station_id, strftime(time, '${KEY_FORMAT[q.timeScale]}') AS period, ${cols}
      FROM read_parquet(${quote(`${parquetDir}/${q.timeScale}.parquet`)})
      WHERE station_id IN (${ids.map(quote).join(', ')})
        AND time BETWEEN CAST(${quote(sqlTimeOf(q.timeScale, q.range.start))} AS ${t}) AND CAST(${quote(sqlTimeOf(q.timeScale, q.range.end))} AS ${t})`;
    found = await rows(con, sql);
  }
  return assembleNearest(q, choices, rowsByStation(found, q.dataTypes));
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
  return assemblePolyAggregate(q, inside, byPeriod);
}
