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
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlTimeOf } from '../../src/contract/periods.ts';
import type { NearestStationResponse, PolyAggregateResponse, StationQuery } from '../../src/contract/types.ts';
import type { StationCoverage } from '../../src/dataset/catalog.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';
import { assembleNearest, needOf, planNearest, rankStations } from '../../src/stations/nearest-station.ts';
import { assemblePolyAggregate, candidatesInside, contributing } from '../../src/stations/poly-aggregate.ts';
import { toNumberOrNull, type StationRows } from '../../src/stations/station-archive.ts';
import { rowsOf } from '../../src/stations/station-rows.ts';
import { ordinalOfKey } from '../../src/stations/time-keys.ts';
import { parseStationIndex, type IndexedStation } from '../../src/stations/station-index.ts';

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
  const coverage: Record<StationTimeScale, Map<string, StationCoverage>> = {
    hourly: new Map(),
    daily: new Map(),
    monthly: new Map(),
  };
  for (const line of (await readFile(join(datasetDir, 'stations/coverage.jsonl'), 'utf8')).split('\n')) {
    if (!line) continue;
    const { id, scale, groups } = JSON.parse(line) as { id: string; scale: StationTimeScale; groups: StationCoverage };
    coverage[scale].set(id, groups);
  }
  return { stations, coverage };
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

/** Rows of the given stations' files between the query's times, by station and period key. */
async function stationRows(
  con: DuckDBConnection,
  stationsDir: string,
  q: StationQuery,
  stations: readonly IndexedStation[],
): Promise<Map<string, StationRows>> {
  const files = stations.map((s) => s.files[q.timeScale]?.path).filter((p): p is string => p !== undefined);
  const out = new Map<string, StationRows>();
  if (!files.length) return out;
  const t = TIME_TYPE[q.timeScale];
  const cols = q.dataTypes.map((d) => `"${d}"`).join(', ');
  const sql = `SELECT station_id, strftime(time, '${KEY_FORMAT[q.timeScale]}') AS period, ${cols}
    FROM read_parquet([${files.map((p) => quote(join(stationsDir, '..', p))).join(', ')}], union_by_name = true)
    WHERE time BETWEEN CAST(${quote(sqlTimeOf(q.timeScale, q.range.start))} AS ${t}) AND CAST(${quote(sqlTimeOf(q.timeScale, q.range.end))} AS ${t})`;
  const byStation = new Map<string, Array<[number, Array<number | null>]>>();
  for (const r of await rows(con, sql)) {
    const id = String(r.station_id);
    const ordinal = ordinalOfKey(q.timeScale, String(r.period));
    if (ordinal === null) throw new Error(`DuckDB gave period ${String(r.period)}, which is no ${q.timeScale} key`);
    if (!byStation.has(id)) byStation.set(id, []);
    byStation.get(id)!.push([ordinal, q.dataTypes.map((d) => toNumberOrNull(r[d]))]);
  }
  for (const [id, entries] of byStation) out.set(id, rowsOf(q.dataTypes.length, entries));
  return out;
}

/** nearest-station over the archive's per-station files in `stationsDir`. */
export async function nativeNearestStation(
  con: DuckDBConnection,
  stationsDir: string,
  q: StationQuery,
  stations: readonly IndexedStation[],
  coverage: Record<StationTimeScale, ReadonlyMap<string, StationCoverage>>,
): Promise<NearestStationResponse> {
  const ranked = q.geometries.map((g) => (g.kind === 'point' ? rankStations(stations, g.position) : null));
  const plan = planNearest(needOf(q), ranked, coverage[q.timeScale]);
  if (!('choices' in plan)) throw new Error('every coverage is loaded; the plan cannot need more');
  const byId = new Map(stations.map((s) => [s.id, s]));
  return assembleNearest(
    q,
    plan.choices,
    await stationRows(
      con,
      stationsDir,
      q,
      plan.ids.map((id) => byId.get(id)!),
    ),
  );
}

/** poly-aggregate over the archive's per-station files in `stationsDir` (rows by DuckDB, sums by the engine's rule). */
export async function nativePolyAggregate(
  con: DuckDBConnection,
  stationsDir: string,
  q: StationQuery,
  stations: readonly IndexedStation[],
): Promise<PolyAggregateResponse> {
  const candidates = candidatesInside(q, stations);
  const found = await stationRows(con, stationsDir, q, candidates);
  return assemblePolyAggregate(q, contributing(candidates, found), found);
}
