/**
 * The SQL of the station endpoints, shared by every backend. Identifiers
 * are data-type names from the contract's fixed list (quoted); every value
 * from a request is a bound parameter.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { isStationType } from '../contract/station-data-types.ts';
import type { SqlParam } from './sql-backend.ts';

const KEY_FORMAT: Record<StationTimeScale, string> = { hourly: '%Y-%m-%dT%H:%M:%S', daily: '%Y-%m-%d', monthly: '%Y-%m-01' };
const TIME_TYPE: Record<StationTimeScale, string> = { hourly: 'TIMESTAMP', daily: 'DATE', monthly: 'DATE' };

function column(scale: StationTimeScale, type: string): string {
  // Validation already guarantees this; the check keeps the SQL safe on its own.
  if (!isStationType(scale, type)) throw new Error(`Not a ${scale} data type: ${type}`);
  return `"${type}"`;
}

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: SqlParam[];
}

/**
 * Rows of each station in `stationIds` between two times: one SELECT per
 * station joined by UNION ALL, so each branch filters on one station_id and
 * prunes to that station's row groups (an IN list would scan the span
 * between the smallest and largest id).
 */
export function stationRowsSql(scale: StationTimeScale, types: readonly string[], stationIds: readonly string[], from: string, to: string): Statement {
  const cols = types.map((t) => column(scale, t)).join(', ');
  const branch = `SELECT station_id, strftime(time, '${KEY_FORMAT[scale]}') AS period, ${cols} FROM ${scale}
    WHERE station_id = ? AND time BETWEEN CAST(? AS ${TIME_TYPE[scale]}) AND CAST(? AS ${TIME_TYPE[scale]})`;
  return {
    sql: stationIds.map(() => branch).join('\nUNION ALL\n'),
    params: stationIds.flatMap((id) => [id, from, to]),
  };
}

/**
 * Per period, the mean over stations of each type and how many stations had
 * a value (`<type>__n`). avg and count skip nulls, which is the contract's
 * "averaged only over stations that have data for that date".
 */
export function aggregateSql(scale: StationTimeScale, types: readonly string[], stationIds: readonly string[], from: string, to: string): Statement {
  const rows = stationRowsSql(scale, types, stationIds, from, to);
  const aggs = types.map((t) => `avg(${column(scale, t)}) AS ${column(scale, t)}, CAST(count(${column(scale, t)}) AS INTEGER) AS "${t}__n"`);
  return { sql: `SELECT period, ${aggs.join(', ')} FROM (${rows.sql}) GROUP BY period`, params: rows.params };
}
