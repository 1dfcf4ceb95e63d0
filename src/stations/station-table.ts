/**
 * The rows of chosen stations over a date range, as column arrays: what
 * station SQL loads into DuckDB. Read with the endpoints' own reader, so
 * SQL sees exactly the values the endpoints answer with.
 */
import { fieldError, throwIfAborted } from '../contract/errors.ts';
import { quote } from '../contract/quote.ts';
import { STATION_TYPES } from '../contract/station-data-types.ts';
import type { StationTable, StationTableRequest } from '../sql/station-sql.ts';
import { abortable } from '../io/abortable.ts';
import { sqlTimeOf } from '../contract/periods.ts';
import type { StationArchive } from './station-archive.ts';
import { valueOrNull } from './station-rows.ts';

/**
 * Reads `request`'s stations from `archive`. `held` lists the data types the
 * dataset holds at the scale (its catalog); asked types it lacks load as
 * all-null columns, like the endpoints answer null for them.
 */
export async function readStationTable(
  request: StationTableRequest,
  archive: StationArchive,
  held: readonly string[],
  signal?: AbortSignal,
): Promise<StationTable> {
  const all = await archive.stations(signal, [request.timeScale]);
  const byId = new Map(all.map((s) => [s.id, s]));
  const chosen = request.stations.map((id, i) => {
    const s = byId.get(id);
    if (!s)
      throw fieldError(
        'invalid_field',
        `stations[${i}]`,
        `stations[${i}] ${quote(id)} is not a station of this dataset (it lists ${all.length}; the app's map and engine.stations() show them).`,
      );
    return s;
  });
  // Default: what the dataset holds, in the contract's table order.
  const dataTypes = request.dataTypes ?? STATION_TYPES[request.timeScale].filter((t) => held.includes(t));
  const read = await abortable(
    Promise.all(chosen.map((s) => archive.rows(s, request.timeScale, dataTypes, request.first, request.last))),
    signal,
  );
  throwIfAborted(signal);
  const stationId: string[] = [];
  const time: string[] = [];
  const values: Record<string, Array<number | null>> = Object.fromEntries(dataTypes.map((t) => [t, []]));
  read.forEach((rows, i) => {
    const id = chosen[i]!.id;
    // Rows come in period order; hourly times lose their `T`, dates stay.
    rows.at.forEach((ordinal, r) => {
      stationId.push(id);
      time.push(sqlTimeOf(request.timeScale, ordinal));
      dataTypes.forEach((t, ti) => values[t]!.push(valueOrNull(rows.values[ti]![r]!)));
    });
  });
  return {
    timeScale: request.timeScale,
    dataTypes,
    stations: chosen.map((s) => ({ id: s.id, name: s.name, lat: s.lat, lon: s.lon, elevation: s.elevation })),
    observations: { stationId, time, values },
  };
}
