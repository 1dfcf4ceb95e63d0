/**
 * Ready queries for the SQL panel: each names the time scale it needs.
 * They are plain DuckDB SQL over the two tables station SQL loads
 * (docs/sql.md), written for growers' questions.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';

/** One example: a title, the scale it reads, the data types it needs and its SQL. */
export interface SqlExample {
  title: string;
  timeScale: StationTimeScale;
  /** Columns of `observations` it reads: offered only when the dataset holds them at `timeScale`. */
  needs: readonly string[];
  sql: string;
}

/** The panel's examples, in menu order. */
export const SQL_EXAMPLES: readonly SqlExample[] = [
  {
    title: 'Frost hours per month (hourly minimum below 0 °C, as the station indices count)',
    timeScale: 'hourly',
    needs: ['temperature_min'],
    sql: `SELECT s.name, strftime(o.time, '%Y-%m') AS month,
       count(*) FILTER (WHERE o.temperature_min < 0) AS frost_hours,
       count(o.temperature_min) AS hours_with_data
FROM observations o JOIN stations s USING (station_id)
GROUP BY ALL
ORDER BY s.name, month`,
  },
  {
    title: 'The ten wettest days',
    timeScale: 'daily',
    needs: ['rain_sum'],
    sql: `SELECT s.name, o.time AS day, o.rain_sum AS rain_mm
FROM observations o JOIN stations s USING (station_id)
WHERE o.rain_sum IS NOT NULL
ORDER BY o.rain_sum DESC, s.name, day
LIMIT 10`,
  },
  {
    title: "A station's completeness per month (days with a mean temperature)",
    timeScale: 'daily',
    needs: ['temperature_mean'],
    sql: `SELECT s.name, strftime(o.time, '%Y-%m') AS month,
       count(o.temperature_mean) AS days_with_data,
       day(last_day(min(o.time))) AS days_in_month,
       round(100.0 * count(o.temperature_mean) / day(last_day(min(o.time))), 1) AS percent
FROM observations o JOIN stations s USING (station_id)
GROUP BY ALL
ORDER BY s.name, month`,
  },
];
