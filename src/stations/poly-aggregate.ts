/**
 * /api/poly-aggregate/: the stations inside one polygon (boundary
 * inclusive) that have data in the range, averaged per period and type over
 * the stations that have a value then, with the count of those stations.
 *
 * Deterministic by construction (docs/contract.md): each mean is summed in
 * JavaScript doubles in ascending station-id order and divided once by the
 * count, so every adapter and every run gives the same bits; the mean is
 * answered two decimals finer than a reading (contract/station-type-info.ts).
 */
import type { PeriodValues, PolyAggregateResponse, StationQuery } from '../contract/types.ts';
import { throwIfAborted } from '../contract/errors.ts';
import { roundValue, stationMeanDecimals } from '../contract/station-type-info.ts';
import { containsPoint } from './point-in-polygon.ts';
import { abortable } from '../io/abortable.ts';
import type { StationArchive } from './station-archive.ts';
import { hasAnyValue, rowIndexByPeriod, type StationRows } from './station-rows.ts';
import { PeriodTable } from '../contract/period-table.ts';
import { dataIn, spansRange, type IndexedStation } from './station-index.ts';

/**
 * The stations inside the query's polygon whose files span the range, in
 * station-id order. Which of them really have data is known once their
 * rows are read ({@link contributing}).
 */
export function candidatesInside(q: StationQuery, stations: readonly IndexedStation[]): IndexedStation[] {
  const g = q.geometries[0];
  if (!g || g.kind !== 'polygon') return [];
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  return stations
    .filter((s) => spansRange(s, q.timeScale, first, last) && containsPoint(g.polygons, [s.lon, s.lat]))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The candidates with at least one value of a requested type in the range: the contract's contributing stations. */
export function contributing(
  candidates: readonly IndexedStation[],
  rows: ReadonlyMap<string, StationRows>,
): IndexedStation[] {
  return candidates.filter((s) => {
    const r = rows.get(s.id);
    return r !== undefined && hasAnyValue(r);
  });
}

/**
 * The contract's answer from the contributing stations (id order) and their rows. With `tables`,
 * `aggregated_data` stays a {@link PeriodTable} (columns) for a transport that sends columns; the
 * engine makes the objects otherwise (CallOptions.periodTables).
 */
export function assemblePolyAggregate(
  q: StationQuery,
  inside: readonly IndexedStation[],
  rows: ReadonlyMap<string, StationRows>,
  tables = false,
): PolyAggregateResponse {
  const stations_metadata: PolyAggregateResponse['stations_metadata'] = {};
  inside.forEach((s, i) => {
    stations_metadata[String(i)] = { station_lat: s.lat, station_lon: s.lon, station_elevation: s.elevation };
  });
  const { keys, start } = q.range;
  // Per station (id order), its columns and the row of each period.
  const series = inside.flatMap((s) => {
    const r = rows.get(s.id);
    return r ? [{ values: r.values, rowAt: rowIndexByPeriod(r, start, keys.length) }] : [];
  });
  // Per type, its mean and its count, as the answer orders them.
  const fields = q.dataTypes.flatMap((t) => [t, `${t}_station_count`]);
  const columns = fields.map(() => new Float64Array(keys.length));
  q.dataTypes.forEach((t, ti) => {
    const [means, counts] = [columns[2 * ti]!, columns[2 * ti + 1]!];
    const decimals = stationMeanDecimals(q.timeScale, t);
    for (let p = 0; p < keys.length; p++) {
      let sum = 0;
      let count = 0;
      for (const { values, rowAt } of series) {
        const r = rowAt[p]!;
        if (r < 0) continue;
        const v = values[ti]![r]!;
        if (Number.isNaN(v)) continue;
        sum += v;
        count++;
      }
      means[p] = count > 0 ? roundValue(sum / count, decimals) : NaN;
      counts[p] = count;
    }
  });
  const table = new PeriodTable(keys, fields, columns);
  // A stand-in for the objects until the engine makes them (or a transport sends the columns).
  const aggregated_data = (tables ? table : table.rows()) as Record<string, PeriodValues>;
  return { stations_metadata, aggregated_data };
}

/** Answers a validated poly-aggregate query from the archive (`tables`: see {@link assemblePolyAggregate}). */
export async function polyAggregate(
  q: StationQuery,
  archive: StationArchive,
  signal?: AbortSignal,
  tables = false,
): Promise<PolyAggregateResponse> {
  const inside = candidatesInside(q, await archive.stations(signal, [q.timeScale]));
  const first = q.range.keys[0]!;
  const last = q.range.keys[q.range.keys.length - 1]!;
  // Their coverage lines first (one round, adjacent lines in one request): a station without a
  // value of the asked types in the range is not read at all, and the lines' chunk maps let each
  // file's footer and chunks come in one request (station-archive.ts). Files the link makes worth
  // reading whole need no line: their own values tell whether they contribute (`contributing`).
  const whole = archive.readsWhole(inside, q.timeScale, q.dataTypes, first, last);
  const lines = archive.coverage(
    inside.filter((s) => !whole.has(s.id)),
    q.timeScale,
    signal,
  );
  const rowsOf = (s: IndexedStation, options?: { whole: boolean }) =>
    archive.rows(s, q.timeScale, q.dataTypes, first, last, undefined, options).then((r) => [s.id, r] as const);
  // Sent after the lines: a browser sends requests in the order they are made.
  const direct = Promise.all(inside.filter((s) => whole.has(s.id)).map((s) => rowsOf(s, { whole: true })));
  // Awaited below; a failure that comes while the lines are awaited must not go unhandled.
  direct.catch(() => undefined);
  // One abort listener for all reads (not one per station: runtimes warn past ten on one signal).
  const coverage = await abortable(lines, signal);
  const candidates = inside.filter((s) => {
    if (whole.has(s.id)) return true;
    const c = coverage.get(s.id);
    // `maybe` (a range inside merged gaps) is read: its rows say whether it contributes.
    return c !== undefined && dataIn(c, q.dataTypes, q.range.start, q.range.end) !== 'no';
  });
  const [directRead, linesRead] = await abortable(
    Promise.all([direct, Promise.all(candidates.filter((s) => !whole.has(s.id)).map((s) => rowsOf(s)))]),
    signal,
  );
  const read = [...directRead, ...linesRead];
  throwIfAborted(signal);
  const rows = new Map(read);
  return assemblePolyAggregate(q, contributing(candidates, rows), rows, tables);
}
