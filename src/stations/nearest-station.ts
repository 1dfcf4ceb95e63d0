/**
 * /api/nearest-station/: for each point, the geodesically nearest station
 * that has at least one value of a requested type in the range, and its
 * values for every period.
 */
import { distanceM } from '../contract/geodesic.ts';
import { sqlTimeOf } from '../contract/periods.ts';
import type { NearestStationResponse, PeriodValues, StationQuery } from '../contract/types.ts';
import type { CatalogStation } from '../dataset/catalog.ts';
import { throwIfAborted } from '../contract/errors.ts';
import { hasDataIn } from './coverage.ts';
import type { SqlBackend, SqlRow } from './sql-backend.ts';
import { stationRowsSql } from './station-sql.ts';

/** The station chosen for one point. */
export interface NearestChoice {
  station: CatalogStation;
  distanceM: number;
  actualNearest: boolean;
}

/**
 * Picks the station for a point. Stations are ranked by geodesic distance,
 * ties by station id. The first with data wins; `actualNearest` is false
 * only when a strictly closer station was passed over. When no station has
 * data, the nearest one is returned (its values will all be null).
 */
export function chooseStation(stations: readonly CatalogStation[], point: [number, number], q: StationQuery): NearestChoice | null {
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  const ranked = stations
    .map((station) => ({ station, d: distanceM(point, [station.lon, station.lat]) }))
    .sort((a, b) => a.d - b.d || (a.station.id < b.station.id ? -1 : a.station.id > b.station.id ? 1 : 0));
  if (ranked.length === 0) return null;
  const nearest = ranked[0]!;
  const withData = ranked.find((r) => hasDataIn(r.station, q.timeScale, q.dataTypes, first, last));
  const pick = withData ?? nearest;
  return { station: pick.station, distanceM: pick.d, actualNearest: pick.d <= nearest.d };
}

/** The chosen station of each point, and the ids of those with data to read (each once). */
export function planNearest(q: StationQuery, stations: readonly CatalogStation[]): { choices: Array<NearestChoice | null>; ids: string[] } {
  const choices = q.geometries.map((g) => (g.kind === 'point' ? chooseStation(stations, g.position, q) : null));
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  const ids = [...new Set(choices.filter((c) => c && hasDataIn(c.station, q.timeScale, q.dataTypes, first, last)).map((c) => c!.station.id))];
  return { choices, ids };
}

/** Groups result rows (`station_id`, `period`, one column per type) by station and period. */
export function rowsByStation(rows: readonly SqlRow[], types: readonly string[]): Map<string, Map<string, PeriodValues>> {
  const byStation = new Map<string, Map<string, PeriodValues>>();
  for (const row of rows) {
    const values: PeriodValues = {};
    for (const t of types) values[t] = toNumberOrNull(row[t]);
    const id = String(row.station_id);
    let m = byStation.get(id);
    if (!m) byStation.set(id, (m = new Map()));
    m.set(String(row.period), values);
  }
  return byStation;
}

/** The contract's answer from the choices and the rows read: every period of the range, nulls where no row. */
export function assembleNearest(q: StationQuery, choices: ReadonlyArray<NearestChoice | null>, byStation: Map<string, Map<string, PeriodValues>>): NearestStationResponse {
  const out: NearestStationResponse = {};
  q.geometries.forEach((g, i) => {
    const choice = choices[i];
    if (!choice) return;
    const rows = byStation.get(choice.station.id);
    const data: Record<string, PeriodValues> = {};
    for (const key of q.range.keys) {
      const found = rows?.get(key);
      const values: PeriodValues = {};
      for (const t of q.dataTypes) values[t] = found ? (found[t] ?? null) : null;
      data[key] = values;
    }
    out[g.key] = {
      metadata: {
        station_lat: choice.station.lat,
        station_lon: choice.station.lon,
        station_elevation: choice.station.elevation,
        // Millimetres: far below the data's precision, and identical in every JS engine
        // (the last bits of the trigonometry differ between V8 versions).
        distance_from_point_m: Math.round(choice.distanceM * 1000) / 1000,
        actual_nearest: choice.actualNearest,
      },
      data,
    };
  });
  return out;
}

/** Answers a validated nearest-station query. `backend` is only opened when some chosen station has data. */
export async function nearestStation(
  q: StationQuery,
  stations: readonly CatalogStation[],
  backend: () => Promise<SqlBackend>,
  signal?: AbortSignal,
): Promise<NearestStationResponse> {
  const { choices, ids } = planNearest(q, stations);
  let rows: SqlRow[] = [];
  if (ids.length) {
    const { sql, params } = stationRowsSql(q.timeScale, q.dataTypes, ids, sqlTimeOf(q.timeScale, q.range.start), sqlTimeOf(q.timeScale, q.range.end));
    rows = await (await backend()).query(sql, params, signal);
  }
  throwIfAborted(signal);
  return assembleNearest(q, choices, rowsByStation(rows, q.dataTypes));
}

/** SQL values → JSON numbers; anything missing or not finite → null. */
export function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : (v as number);
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}
