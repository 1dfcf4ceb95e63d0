/**
 * /api/poly-aggregate/: the stations inside one polygon (boundary
 * inclusive) that have data in the range, averaged per period and type over
 * the stations that have a value then, with the count of those stations.
 */
import { sqlTimeOf } from '../contract/periods.ts';
import type { PeriodValues, PolyAggregateResponse, StationQuery } from '../contract/types.ts';
import type { CatalogStation } from '../dataset/catalog.ts';
import { throwIfAborted } from '../contract/errors.ts';
import { hasDataIn } from './coverage.ts';
import { toNumberOrNull } from './nearest-station.ts';
import { containsPoint } from './point-in-polygon.ts';
import type { SqlBackend, SqlRow } from './sql-backend.ts';
import { aggregateSql } from './station-sql.ts';

/** The contributing stations of a query, in station-id order (the order of `stations_metadata`). */
export function stationsInside(q: StationQuery, stations: readonly CatalogStation[]): CatalogStation[] {
  const g = q.geometries[0];
  if (!g || g.kind !== 'polygon') return [];
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  return stations
    .filter((s) => containsPoint(g.polygons, [s.lon, s.lat]) && hasDataIn(s, q.timeScale, q.dataTypes, first, last))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The contract's answer from the contributing stations and the per-period rows (`<type>`, `<type>__n`). */
export function assemblePolyAggregate(q: StationQuery, inside: readonly CatalogStation[], byPeriod: Map<string, SqlRow>): PolyAggregateResponse {
  const stations_metadata: PolyAggregateResponse['stations_metadata'] = {};
  inside.forEach((s, i) => {
    stations_metadata[String(i)] = { station_lat: s.lat, station_lon: s.lon, station_elevation: s.elevation };
  });
  const aggregated_data: Record<string, PeriodValues> = {};
  for (const key of q.range.keys) {
    const row = byPeriod.get(key);
    const values: PeriodValues = {};
    for (const t of q.dataTypes) {
      const count = row ? (toNumberOrNull(row[`${t}__n`]) ?? 0) : 0;
      values[t] = count > 0 ? toNumberOrNull(row![t]) : null;
      values[`${t}_station_count`] = count;
    }
    aggregated_data[key] = values;
  }
  return { stations_metadata, aggregated_data };
}

/** Answers a validated poly-aggregate query. */
export async function polyAggregate(
  q: StationQuery,
  stations: readonly CatalogStation[],
  backend: () => Promise<SqlBackend>,
  signal?: AbortSignal,
): Promise<PolyAggregateResponse> {
  const inside = stationsInside(q, stations);
  const byPeriod = new Map<string, SqlRow>();
  if (inside.length) {
    const { sql, params } = aggregateSql(q.timeScale, q.dataTypes, inside.map((s) => s.id), sqlTimeOf(q.timeScale, q.range.start), sqlTimeOf(q.timeScale, q.range.end));
    for (const row of await (await backend()).query(sql, params, signal)) byPeriod.set(String(row.period), row);
  }
  throwIfAborted(signal);
  return assemblePolyAggregate(q, inside, byPeriod);
}
