/**
 * Station queries answered by SQL over the stations' rows, with the engine's
 * own pure functions choosing the stations and assembling the JSON
 * (`planNearest`, `candidatesInside`, `assemble…`), so that a baseline
 * differs from the engine only in how rows are read. Free of Node imports:
 * the native DuckDB baseline (stations.ts) and the DuckDB-WASM one in the
 * bench page (bench/browser/duckdb-answerer.ts) both use it, each with its
 * own way to run SQL and its own FROM clause.
 */
import { sqlTimeOf } from '../../src/contract/periods.ts';
import type { NearestStationResponse, PolyAggregateResponse, StationQuery } from '../../src/contract/types.ts';
import type { StationCoverage } from '../../src/dataset/catalog.ts';
import { STATION_TIME_SCALES, type StationTimeScale } from '../../src/contract/station-data-types.ts';
import { calendarSql } from '../../src/contract/calendars.ts';
import { TIME_SCALES } from '../../src/contract/time-scales.ts';
import { assembleNearest, needOf, planNearest, rankStations } from '../../src/stations/nearest-station.ts';
import { assemblePolyAggregate, candidatesInside, contributing } from '../../src/stations/poly-aggregate.ts';
import { toNumberOrNull, type StationRows } from '../../src/stations/station-archive.ts';
import { rowsOf } from '../../src/stations/station-rows.ts';
import { ordinalOfKey } from '../../src/stations/time-keys.ts';
import type { IndexedStation } from '../../src/stations/station-index.ts';

/** The station tables' SQL of a scale's calendar: its time column's type and key format. */
const sqlOf = (scale: StationTimeScale) => calendarSql(TIME_SCALES[scale].calendar);

/** Runs one SQL query and returns its rows as plain objects. */
export type SqlRows = (sql: string) => Promise<Record<string, unknown>[]>;

/** The FROM clause holding the rows of `stations` at the query's time scale (columns station_id, time, the types), or null when none has any. */
export type RowSource = (q: StationQuery, stations: readonly IndexedStation[]) => string | null;

export const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Rows of the given stations between the query's times, by station and period key. */
async function stationRows(
  run: SqlRows,
  from: RowSource,
  q: StationQuery,
  stations: readonly IndexedStation[],
): Promise<Map<string, StationRows>> {
  const out = new Map<string, StationRows>();
  const source = from(q, stations);
  if (!source) return out;
  const t = sqlOf(q.timeScale).timeType;
  const cols = q.dataTypes.map((d) => `"${d}"`).join(', ');
  const sql = `SELECT station_id, strftime(time, '${sqlOf(q.timeScale).keyFormat}') AS period, ${cols}
    FROM ${source}
    WHERE time BETWEEN CAST(${quote(sqlTimeOf(q.timeScale, q.range.start))} AS ${t}) AND CAST(${quote(sqlTimeOf(q.timeScale, q.range.end))} AS ${t})`;
  const byStation = new Map<string, Array<[number, Array<number | null>]>>();
  for (const r of await run(sql)) {
    const id = String(r.station_id);
    const ordinal = ordinalOfKey(q.timeScale, String(r.period));
    if (ordinal === null) throw new Error(`DuckDB gave period ${String(r.period)}, which is no ${q.timeScale} key`);
    if (!byStation.has(id)) byStation.set(id, []);
    byStation.get(id)!.push([ordinal, q.dataTypes.map((d) => toNumberOrNull(r[d]))]);
  }
  for (const [id, entries] of byStation) out.set(id, rowsOf(q.dataTypes.length, entries));
  return out;
}

/** nearest-station: the engine's choice of stations, their rows by SQL. */
export async function sqlNearestStation(
  run: SqlRows,
  from: RowSource,
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
      run,
      from,
      q,
      plan.ids.map((id) => byId.get(id)!),
    ),
  );
}

/** poly-aggregate: the engine's stations inside, their rows by SQL, sums by the engine's rule. */
export async function sqlPolyAggregate(
  run: SqlRows,
  from: RowSource,
  q: StationQuery,
  stations: readonly IndexedStation[],
): Promise<PolyAggregateResponse> {
  const candidates = candidatesInside(q, stations);
  const found = await stationRows(run, from, q, candidates);
  return assemblePolyAggregate(q, contributing(candidates, found), found);
}

/** Every station's coverage of every scale, from the lines of `coverage.jsonl`. */
export function coverageOf(text: string): Record<StationTimeScale, Map<string, StationCoverage>> {
  const coverage = Object.fromEntries(STATION_TIME_SCALES.map((s) => [s, new Map()])) as Record<
    StationTimeScale,
    Map<string, StationCoverage>
  >;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const { id, scale, groups } = JSON.parse(line) as { id: string; scale: StationTimeScale; groups: StationCoverage };
    coverage[scale].set(id, groups);
  }
  return coverage;
}
