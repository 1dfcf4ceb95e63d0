/**
 * The two synthetic station *input* archives of `npm run bench -- --scale`,
 * generated deterministically with native DuckDB SQL (no JS arrays: the
 * hourly one is 52 M rows) and cached:
 *
 * - *network*: 2,000 stations × 25 years (2000–2024) of daily values, the
 *   size of a national network;
 * - *seed*: 600 stations × 10 years (2015–2024) of hourly values, the size
 *   of the network the specification's own service runs.
 *
 * Gaps are realistic rather than uniform: stations open late and close
 * early, whole months go missing (outages), single readings drop out, and
 * some stations never had a humidity or solar sensor. Every value is a
 * function of (station, time) through DuckDB's `hash`, so the same inputs
 * come out on every run and machine.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/** What one synthetic input archive holds. */
export interface ScaleInputSpec {
  id: 'network' | 'seed';
  /** Cache folder name: the id for the full size, `<id>-small` for the development size. */
  folder: string;
  stations: number;
  firstYear: number;
  lastYear: number;
  scale: 'daily' | 'hourly';
}

/** The two archives of the scale bench. */
export const SCALE_INPUTS: Record<ScaleInputSpec['id'], ScaleInputSpec> = {
  network: { id: 'network', folder: 'network', stations: 2000, firstYear: 2000, lastYear: 2024, scale: 'daily' },
  seed: { id: 'seed', folder: 'seed', stations: 600, firstYear: 2015, lastYear: 2024, scale: 'hourly' },
};

/**
 * The same archives at a development size (`--scale-size small`): the same
 * generator and gaps on 1/10 of the stations and the last 3 years, so the
 * scale bench's code can be run in a minute; its numbers are not the
 * issue's targets.
 */
export const SMALL_SCALE_INPUTS: Record<ScaleInputSpec['id'], ScaleInputSpec> = {
  network: { id: 'network', folder: 'network-small', stations: 200, firstYear: 2022, lastYear: 2024, scale: 'daily' },
  seed: { id: 'seed', folder: 'seed-small', stations: 60, firstYear: 2022, lastYear: 2024, scale: 'hourly' },
};

/** The input files of one archive, as `climate-query build` takes them. */
export interface ScaleInputFiles {
  stations: string;
  observations: string;
  scale: 'daily' | 'hourly';
}

/** A uniform number in [0, 1) from a seed expression: deterministic per (salt, args). */
const u = (salt: number, ...args: string[]) => `((hash(${salt}, ${args.join(', ')}) % 1000003) / 1000003.0)`;

/**
 * Writes (once) the stations CSV and the observations Parquet of `spec`
 * under `dir`; returns their paths. A partly written archive is never
 * left behind: files are written to a temporary folder and renamed.
 */
export async function ensureScaleInputs(
  spec: ScaleInputSpec,
  dir: string,
  log: (s: string) => void = () => {},
): Promise<ScaleInputFiles> {
  const out = join(dir, spec.folder);
  const files: ScaleInputFiles = {
    stations: join(out, 'stations.csv'),
    observations: join(out, `${spec.scale}.parquet`),
    scale: spec.scale,
  };
  if (existsSync(files.stations) && existsSync(files.observations)) return files;
  const tmp = `${out}.writing`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const t0 = performance.now();
  const db = await DuckDBInstance.create(':memory:', {
    threads: '2',
    memory_limit: '2GB',
    temp_directory: join(tmp, '.tmp'),
  });
  const con = await db.connect();
  try {
    // Stations: spread over South Africa's bounding box; each opens and closes in its own year.
    await con.run(`CREATE TABLE st AS SELECT i,
        printf('S%05d', i) AS station_id, printf('Synthetic station %d', i) AS name,
        round(-34.6 + 12.4 * ${u(1, 'i')}, 4) AS lat, round(16.6 + 16.2 * ${u(2, 'i')}, 4) AS lon,
        CASE WHEN ${u(3, 'i')} < 0.05 THEN NULL ELSE round(20 + 1800 * ${u(4, 'i')}) END AS elevation,
        CASE WHEN ${u(5, 'i')} < 0.35 THEN ${spec.firstYear} + CAST(floor(${u(6, 'i')} * ${spec.lastYear - spec.firstYear}) AS INT) ELSE ${spec.firstYear} END AS open_year,
        CASE WHEN ${u(7, 'i')} < 0.15 THEN ${spec.lastYear} - CAST(floor(${u(8, 'i')} * 4) AS INT) ELSE ${spec.lastYear} END AS close_year,
        ${u(9, 'i')} < 0.12 AS no_humidity, ${u(10, 'i')} < 0.3 AS no_solar
      FROM range(${spec.stations}) t(i)`);
    await con.run(
      `COPY (SELECT station_id, name, lat, lon, elevation FROM st ORDER BY i) TO '${join(tmp, 'stations.csv')}' (HEADER)`,
    );

    const step = spec.scale === 'daily' ? `INTERVAL 1 DAY` : `INTERVAL 1 HOUR`;
    const last =
      spec.scale === 'daily' ? `DATE '${spec.lastYear}-12-31'` : `TIMESTAMP '${spec.lastYear}-12-31 23:00:00'`;
    const first =
      spec.scale === 'daily' ? `DATE '${spec.firstYear}-01-01'` : `TIMESTAMP '${spec.firstYear}-01-01 00:00:00'`;
    const ts = 'CAST(t AS VARCHAR)';
    const month = `strftime(t, '%Y-%m')`;
    // Seasonal and (hourly) diurnal temperature, cooler inland and up high; rain on ~12 % of periods.
    const doy = `dayofyear(t)`;
    const season = `cos(2 * pi() * (${doy} - 15) / 365.25)`;
    const base = `(17.5 + 5.5 * ${season} - 0.0062 * coalesce(elevation, 300) + 3 * (${u(11, 'i', ts)} - 0.5))`;
    const cols =
      spec.scale === 'daily'
        ? [
            `round(${base}, 1) AS temperature_mean`,
            `round(${base} - 5 - 3 * ${u(12, 'i', ts)}, 1) AS temperature_min`,
            `round(${base} + 5 + 3 * ${u(13, 'i', ts)}, 1) AS temperature_max`,
            `CASE WHEN ${u(14, 'i', ts)} < 0.88 THEN 0 ELSE round(-ln(1 - ${u(15, 'i', ts)}) * 6, 1) END AS rain_sum`,
            `CASE WHEN no_humidity THEN NULL ELSE round(45 + 40 * ${u(16, 'i', ts)}, 0) END AS humidity_mean`,
            `round(1 + 5 * ${u(17, 'i', ts)}, 1) AS wind_speed_mean`,
          ]
        : [
            `round(${base} + 5 * cos(2 * pi() * (hour(t) - 14) / 24), 1) AS temperature_mean`,
            `CASE WHEN ${u(14, 'i', ts)} < 0.95 THEN 0 ELSE round(-ln(1 - ${u(15, 'i', ts)}) * 1.5, 1) END AS rain`,
            `CASE WHEN no_humidity THEN NULL ELSE round(55 + 20 * cos(2 * pi() * (hour(t) - 4) / 24) + 15 * ${u(16, 'i', ts)}, 0) END AS humidity`,
            `round(0.5 + 4 * ${u(17, 'i', ts)}, 1) AS wind_speed`,
            `CASE WHEN no_solar THEN NULL ELSE round(greatest(0, 900 * sin(pi() * (hour(t) - 6) / 13)) * (0.6 + 0.4 * ${u(18, 'i', ts)}), 0) END AS solar_radation`,
            `round(${base} - 6 - 3 * ${u(19, 'i', ts)}, 1) AS dew_point`,
            `round(360 * ${u(20, 'i', ts)}, 0) AS wind_direction`,
          ];
    log(
      `writing ${spec.id} observations (${spec.stations} stations, ${spec.firstYear}–${spec.lastYear} ${spec.scale})`,
    );
    await con.run(`COPY (
        SELECT station_id, ${spec.scale === 'daily' ? 't' : `strftime(t, '%Y-%m-%d %H:00:00')`} AS time, ${cols.join(', ')}
        FROM st, LATERAL (SELECT unnest(range(${first}, ${last} + ${step}, ${step})) AS t) r
        WHERE year(t) BETWEEN open_year AND close_year
          AND ${u(21, 'i', month)} >= 0.03          -- a month-long outage in 3 % of station-months
          AND ${u(22, 'i', ts)} >= 0.004            -- single readings lost
      ) TO '${join(tmp, `${spec.scale}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
  } finally {
    con.closeSync();
    db.closeSync();
  }
  await rm(join(tmp, '.tmp'), { recursive: true, force: true });
  await writeFile(
    join(tmp, 'README.txt'),
    `Synthetic ${spec.id} station inputs for npm run bench -- --scale; deterministic, safe to delete.\n`,
  );
  await rm(out, { recursive: true, force: true });
  await rename(tmp, out);
  log(`${spec.id} inputs written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return files;
}
