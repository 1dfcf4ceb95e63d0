/**
 * The queries of the scale bench, chosen deterministically from the
 * generated inputs with native DuckDB (not with the engine):
 *
 * - seed, nearest-station: 10 points, each 0.01° north-east of every 60th
 *   station, × 5 hourly types × the year 2023;
 * - network, nearest-station: the same kind of 10 points × 5 daily types ×
 *   2023 (the first query's index bytes);
 * - network, poly-aggregate: the smallest square (0.25° steps) around
 *   (25.0 E, 28.5 S) holding ≥ 50 stations with a value in 2023 × 5 daily
 *   types × 2023.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Scenario } from './scenarios.ts';
import type { ScaleInputFiles } from './scale-inputs.ts';

/** Hourly types asked of the seed archive (as the station test asks of the demo). */
export const SEED_TYPES = ['temperature_mean', 'rain', 'humidity', 'wind_speed', 'solar_radation'];
/** Daily types asked of the network archive. */
export const NETWORK_TYPES = ['temperature_mean', 'temperature_min', 'temperature_max', 'rain_sum', 'humidity_mean'];
/** The year every scale query asks for. */
export const SCALE_YEAR = 2023;
/** Stations a poly-aggregate polygon must hold (the issue's target scenario). */
export const POLY_MIN_STATIONS = 50;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

/** Ten points: 0.01° north-east of every `n / 10`-th station of the stations file (by id). */
export async function tenPoints(con: DuckDBConnection, stationsCsv: string): Promise<string> {
  const all = await rows(con, `SELECT lat, lon FROM read_csv(${lit(stationsCsv)}, header = true) ORDER BY station_id`);
  const step = Math.max(1, Math.floor(all.length / 10));
  return Array.from({ length: 10 }, (_, i) => all[(i * step + 3) % all.length]!)
    .map((r) => `POINT (${(Number(r.lon) + 0.01).toFixed(4)} ${(Number(r.lat) + 0.01).toFixed(4)})`)
    .join(';');
}

/** Axis-aligned square as WKT, half-side `h` degrees around (x, y). */
export function squareAround(x: number, y: number, h: number): string {
  const [x0, x1, y0, y1] = [x - h, x + h, y - h, y + h].map((v) => v.toFixed(4));
  return `POLYGON ((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`;
}

/** The smallest square around (25.0, −28.5), in 0.25° steps, holding ≥ {@link POLY_MIN_STATIONS} stations with a value of `types` in {@link SCALE_YEAR}. */
export async function polySquare(
  con: DuckDBConnection,
  inputs: ScaleInputFiles,
  types: readonly string[],
): Promise<{ wkt: string; halfSide: number; stations: number }> {
  const [x, y] = [25.0, -28.5];
  const active = await rows(
    con,
    `SELECT s.lat, s.lon FROM read_csv(${lit(inputs.stations)}, header = true) s
     WHERE s.station_id IN (SELECT station_id FROM read_parquet(${lit(inputs.observations)})
       WHERE year(CAST(time AS DATE)) = ${SCALE_YEAR} AND (${types.map((t) => `"${t}" IS NOT NULL`).join(' OR ')}))`,
  );
  for (let h = 0.25; h <= 10; h += 0.25) {
    // Rounded like the WKT, so the count here is the polygon's count (boundary inclusive).
    const [x0, x1, y0, y1] = [x - h, x + h, y - h, y + h].map((v) => Number(v.toFixed(4))) as [
      number,
      number,
      number,
      number,
    ];
    const n = active.filter(
      (r) => Number(r.lon) >= x0 && Number(r.lon) <= x1 && Number(r.lat) >= y0 && Number(r.lat) <= y1,
    ).length;
    if (n >= POLY_MIN_STATIONS) return { wkt: squareAround(x, y, h), halfSide: h, stations: n };
  }
  throw new Error(`No square up to 20° holds ${POLY_MIN_STATIONS} active stations; the inputs are too small.`);
}

/** The scale bench's scenarios (the bench page and the native baseline take them as they are). */
export interface ScaleScenarios {
  seedNearest: Scenario;
  networkNearest: Scenario;
  networkPoly: Scenario;
  /** Stations with data in the poly-aggregate square, by the inputs. */
  polyStations: number;
  polyHalfSide: number;
}

/** Chooses the scale scenarios from the inputs. */
export async function scaleScenarios(
  con: DuckDBConnection,
  seed: ScaleInputFiles,
  network: ScaleInputFiles,
): Promise<ScaleScenarios> {
  const year = SCALE_YEAR;
  const poly = await polySquare(con, network, NETWORK_TYPES);
  return {
    seedNearest: {
      id: 'seed-nearest-hourly',
      title: `seed, nearest-station: 10 points × 5 types × ${year} hourly`,
      family: 'station',
      endpoint: 'nearest-station',
      body: {
        wkts: await tenPoints(con, seed.stations),
        dataTypes: SEED_TYPES,
        options: { timeScale: 'hourly' },
        startDate: `${year}-01-01T00:00:00`,
        endDate: `${year}-12-31T23:00:00`,
      },
    },
    networkNearest: {
      id: 'network-nearest-daily',
      title: `network, nearest-station: 10 points × 5 types × ${year} daily`,
      family: 'station',
      endpoint: 'nearest-station',
      body: {
        wkts: await tenPoints(con, network.stations),
        dataTypes: NETWORK_TYPES,
        options: { timeScale: 'daily' },
        startDate: `${year}-01-01`,
        endDate: `${year}-12-31`,
      },
    },
    networkPoly: {
      id: 'network-poly-daily',
      title: `network, poly-aggregate: 1 square of ${(2 * poly.halfSide).toFixed(2)}° (${poly.stations} stations with data) × 5 types × ${year} daily`,
      family: 'station',
      endpoint: 'poly-aggregate',
      body: {
        wkts: poly.wkt,
        dataTypes: NETWORK_TYPES,
        options: { timeScale: 'daily' },
        startDate: `${year}-01-01`,
        endDate: `${year}-12-31`,
      },
    },
    polyStations: poly.stations,
    polyHalfSide: poly.halfSide,
  };
}
