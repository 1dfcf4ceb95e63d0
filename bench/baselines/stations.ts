/**
 * The compute floor for station queries: native DuckDB (@duckdb/node-api,
 * multi-threaded, no WASM, no network) over the dataset's Parquet files on
 * local disk, with the SQL a user would write (`station_id IN (…)`, a
 * time range, GROUP BY for poly-aggregate), through station-sql.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { NearestStationResponse, PolyAggregateResponse, StationQuery } from '../../src/contract/types.ts';
import type { StationCoverage } from '../../src/dataset/catalog.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';
import { parseStationIndex, type IndexedStation } from '../../src/stations/station-index.ts';
import { coverageOf, quote, type RowSource, type SqlRows, sqlNearestStation, sqlPolyAggregate } from './station-sql.ts';

/** An open native DuckDB with a connection. */
export interface NativeDuckDB {
  con: DuckDBConnection;
  close(): void;
}

/** Starts native DuckDB in memory (the Parquet files are read by path per query). */
export async function openNative(): Promise<NativeDuckDB> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run('SET autoload_known_extensions = false');
  await con.run('SET autoinstall_known_extensions = false');
  return {
    con,
    close() {
      con.closeSync();
      db.closeSync();
    },
  };
}

/** The index and every station's coverage of a local dataset, as the engine would learn them. */
export async function loadLocalIndex(
  datasetDir: string,
): Promise<{ stations: IndexedStation[]; coverage: Record<StationTimeScale, Map<string, StationCoverage>> }> {
  const bytes = await readFile(join(datasetDir, 'stations/index.parquet'));
  const stations = await parseStationIndex(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    'index.parquet',
  );
  return { stations, coverage: coverageOf(await readFile(join(datasetDir, 'stations/coverage.jsonl'), 'utf8')) };
}

const runner =
  (con: DuckDBConnection): SqlRows =>
  async (sql) =>
    (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

/** The stations' own Parquet files of the query's scale, read by path. */
const parquetFiles =
  (stationsDir: string): RowSource =>
  (q, stations) => {
    const files = stations.map((s) => s.files[q.timeScale]?.path).filter((p): p is string => p !== undefined);
    if (!files.length) return null;
    return `read_parquet([${files.map((p) => quote(join(stationsDir, '..', p))).join(', ')}], union_by_name = true)`;
  };

/** nearest-station over the archive's per-station files in `stationsDir`. */
export function nativeNearestStation(
  con: DuckDBConnection,
  stationsDir: string,
  q: StationQuery,
  stations: readonly IndexedStation[],
  coverage: Record<StationTimeScale, ReadonlyMap<string, StationCoverage>>,
): Promise<NearestStationResponse> {
  return sqlNearestStation(runner(con), parquetFiles(stationsDir), q, stations, coverage);
}

/** poly-aggregate over the archive's per-station files in `stationsDir` (rows by DuckDB, sums by the engine's rule). */
export function nativePolyAggregate(
  con: DuckDBConnection,
  stationsDir: string,
  q: StationQuery,
  stations: readonly IndexedStation[],
): Promise<PolyAggregateResponse> {
  return sqlPolyAggregate(runner(con), parquetFiles(stationsDir), q, stations);
}
