/**
 * Synthetic demo *input* files for the station archive: a stations CSV and
 * an hourly observations file, which `climate-query build` then turns into
 * a dataset exactly as it would a user's own files.
 *
 * Real station positions (NOAA ISD) in the Western Cape and neighbours, plus
 * synthetic stations in the fruit and wine valleys, with deterministic
 * weather that behaves like weather. Temperature is the demo's one weather
 * (demo-weather.ts) at the station's own position and height, the weather
 * the raster layers hold, plus a sensor's noise; the rest is derived here:
 * winter rain in the south-west and summer rain in the east, dew point
 * never above temperature, no sun at night, wet leaves after rain or dew.
 * Gaps are deliberate and realistic: stations that start late or stop
 * early, sensors a station never had, and sensor outages of a day or two
 * weeks.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { EXTENT_BBOX } from '../contract/raster-layers.ts';
import { BuildError } from './build-error.ts';
import { DEMO_RESOLUTION, coastKmAt, gridFor, staticFields } from './demo-rasters-model.ts';
import { SiteClimates, siteHours, type Site } from './demo-weather.ts';
import { DATA_SOURCES, loadElevation, type ElevationSampler } from './elevation.ts';
import { mulberry32 } from './prng.ts';

/** Options of {@link writeDemoStationInputs}. */
export interface DemoStationOptions {
  /** How many stations in all (real ones first, then synthetic); default 130. */
  stations?: number;
  /** First hour, `yyyy-mm-dd`; default 2023-01-01. */
  start?: string;
  /** Last day, `yyyy-mm-dd` (inclusive, through 23:00); default 2024-12-31. */
  end?: string;
  /** Format of the observation file; default parquet. */
  format?: 'csv' | 'parquet';
  /** Seed of every random choice; default 20240101. */
  seed?: number;
}

/** A demo station as written to stations.csv, with its generator parameters. */
interface DemoStation {
  station_id: string;
  name: string;
  lat: number;
  lon: number;
  elevation: number | null;
  /** Elevation used by the weather model (ETOPO5 when the list has none). */
  model_elev: number;
  /** Kilometres to the sea, from the demo grids the layers use. */
  coast_km: number;
  cont: number;
  region: number;
  start_ts: string;
  end_ts: string;
  has_rain: boolean;
  has_humid: boolean;
  has_solar: boolean;
  has_wind: boolean;
  has_leaf: boolean;
  has_evap: boolean;
}

// Fruit and wine valleys where growers' advisers want dense station cover.
const VALLEYS: Array<[string, number, number]> = [
  ['Stellenbosch', 18.86, -33.93],
  ['Paarl', 18.97, -33.73],
  ['Franschhoek', 19.12, -33.91],
  ['Wellington', 19.01, -33.64],
  ['Worcester', 19.44, -33.65],
  ['Robertson', 19.88, -33.8],
  ['Ceres', 19.31, -33.37],
  ['Elgin', 19.02, -34.15],
  ['Villiersdorp', 19.3, -33.99],
  ['Citrusdal', 19.02, -32.59],
  ['Clanwilliam', 18.89, -32.18],
  ['Piketberg', 18.76, -32.9],
  ['Tulbagh', 19.14, -33.29],
  ['Wolseley', 19.2, -33.42],
  ['Montagu', 20.12, -33.79],
  ['Swellendam', 20.44, -34.02],
  ['Caledon', 19.43, -34.23],
  ['Hermanus', 19.23, -34.42],
  ['Oudtshoorn', 22.2, -33.59],
  ['George', 22.46, -33.96],
  ['Langkloof', 23.85, -33.82],
  ['Vredendal', 18.5, -31.67],
  ['Malmesbury', 18.73, -33.46],
  ['Darling', 18.38, -33.38],
  ['Riebeek', 18.9, -33.38],
  ['Bonnievale', 20.1, -33.93],
  ['McGregor', 19.83, -33.95],
  ['Koue Bokkeveld', 19.3, -32.95],
  ['Witzenberg', 19.35, -33.15],
  ['De Doorns', 19.67, -33.48],
];

/** The area the real stations are taken from: the Western Cape and its neighbours. */
const REAL_BBOX = { west: 16, east: 25.5, south: -35, north: -29.5 };

/** 0 on the coast, 1 some 200 km inland (crude coastline of the Cape). */
function continentality(lon: number, lat: number): number {
  const westCoastLon = 18.47 - 0.351 * (lat + 34.35);
  const southCoastLat = lon < 22 ? -34.45 : -34.0;
  const km = Math.min((lon - westCoastLon) * 92, (lat - southCoastLat) * 111);
  return Math.min(1, Math.max(0, km / 200));
}

function csvLine(values: Array<string | number | null>): string {
  return values
    .map((v) =>
      v === null ? '' : typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v),
    )
    .join(',');
}

/** Appended to every demo station's name: the positions may be real, the weather never is. */
export const SYNTHETIC_MARK = '(synthetic weather)';

async function realStations(): Promise<
  Array<{ id: string; name: string; lat: number; lon: number; elevation: number | null }>
> {
  const text = await readFile(join(DATA_SOURCES, 'za-stations-noaa-isd-2019.csv'), 'utf8');
  const [header, ...lines] = text.trim().split('\n');
  const cols = header!.split(',').map((c) => c.replace(/"/g, ''));
  const out = [];
  for (const line of lines) {
    const cells = line.split('","').map((c) => c.replace(/"/g, ''));
    const row = Object.fromEntries(cols.map((c, i) => [c, cells[i] ?? '']));
    if (!row.LAT || !row.LON) continue;
    const lat = Number(row.LAT);
    const lon = Number(row.LON);
    if (lat < REAL_BBOX.south || lat > REAL_BBOX.north || lon < REAL_BBOX.west || lon > REAL_BBOX.east) continue;
    // Real positions and names, invented weather: the name says so wherever it is shown.
    const name = `${row['STATION NAME']!.toLowerCase().replace(/\b\w/g, (c) => c.toUpperCase())} ${SYNTHETIC_MARK}`;
    out.push({
      id: `${row.USAF}-${row.WBAN}`,
      name,
      lat,
      lon,
      elevation: row['ELEV(M)'] ? Number(row['ELEV(M)']) : null,
    });
  }
  return out;
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Chooses the demo stations and their generator parameters. */
async function demoStations(o: Required<DemoStationOptions>, elevation: ElevationSampler): Promise<DemoStation[]> {
  const rand = mulberry32(o.seed);
  const coastKm = coastKmSampler(elevation);
  const base = (await realStations()).slice(0, o.stations);
  const synthetic = o.stations - base.length;
  for (let i = 0; i < synthetic; i++) {
    const [valley, vlon, vlat] = VALLEYS[i % VALLEYS.length]!;
    const lon = Math.round((vlon + (rand() - 0.5) * 0.16) * 1000) / 1000;
    const lat = Math.round((vlat + (rand() - 0.5) * 0.16) * 1000) / 1000;
    const n = Math.floor(i / VALLEYS.length) + 1;
    base.push({
      id: `SYN-${String(i + 1).padStart(3, '0')}`,
      name: `${valley} ${n} ${SYNTHETIC_MARK}`,
      lat,
      lon,
      elevation: Math.round(Math.max(0, elevation(lon, lat))),
    });
  }
  const t0 = Date.parse(`${o.start}T00:00:00Z`);
  const t1 = Date.parse(`${o.end}T23:00:00Z`);
  const span = t1 - t0;
  return base.map((s) => {
    const r = () => rand();
    let start = t0;
    let end = t1;
    // Some stations are installed during the period, some are closed.
    if (r() < 0.12) start = t0 + Math.floor((r() * 0.7 * span) / 86_400_000) * 86_400_000;
    if (r() < 0.08) end = t1 - Math.floor((r() * 0.6 * span) / 86_400_000) * 86_400_000;
    if (end <= start) end = t1;
    return {
      station_id: s.id,
      name: s.name,
      lat: s.lat,
      lon: s.lon,
      elevation: s.elevation,
      model_elev: s.elevation ?? Math.round(Math.max(0, elevation(s.lon, s.lat))),
      coast_km: coastKm(s.lon, s.lat),
      cont: continentality(s.lon, s.lat),
      region: Math.floor((s.lon - 16) / 1.2) * 10 + Math.floor((s.lat + 36) / 1.2),
      start_ts: `${isoDate(new Date(start))} 00:00:00`,
      end_ts: `${isoDate(new Date(end))} 23:00:00`,
      has_rain: r() < 0.97,
      has_humid: r() < 0.95,
      has_solar: r() < 0.85,
      has_wind: r() < 0.9,
      has_leaf: r() < 0.7,
      has_evap: r() < 0.35,
    };
  });
}

/**
 * Distance to the sea as the layers see it: from the finer demo grid
 * (the Western Cape's) where a station lies inside it, else from the South
 * Africa grid.
 */
function coastKmSampler(elevation: ElevationSampler): (lon: number, lat: number) => number {
  const tc = staticFields(gridFor(EXTENT_BBOX.tc, DEMO_RESOLUTION.tc), elevation);
  const sa = staticFields(gridFor(EXTENT_BBOX.sa, DEMO_RESOLUTION.sa), elevation);
  const [w, s, e, n] = EXTENT_BBOX.tc;
  return (lon, lat) => coastKmAt(lon >= w && lon <= e && lat >= s && lat <= n ? tc : sa, lon, lat);
}

/**
 * The weather model, one row per station-hour. `model_temp` is the demo
 * weather's hourly temperature at the station (demo_hours, from
 * demo-weather.ts); the sensor adds ±0.4 °C of noise. `u(tag, key…)` is a
 * deterministic uniform number in [0, 1) from DuckDB's hash; days and
 * regions key the shared weather so neighbours see the same fronts.
 */
const HOURLY_SQL = `
WITH hours AS (
  SELECT range AS t FROM range(CAST($start AS TIMESTAMP), CAST($end AS TIMESTAMP) + INTERVAL 1 HOUR, INTERVAL 1 HOUR)
),
base AS (
  SELECT s.*, h.t,
    dh.temps[hour(h.t) + 1] AS model_temp,
    dayofyear(h.t) AS doy,
    hour(h.t) AS hr,
    CAST(date_diff('day', DATE '2000-01-01', CAST(h.t AS DATE)) AS BIGINT) AS dn,
    least(1.0, greatest(0.0, (s.lon - 19.0) / 7.0)) AS east
  FROM demo_stations s JOIN hours h ON h.t BETWEEN CAST(s.start_ts AS TIMESTAMP) AND CAST(s.end_ts AS TIMESTAMP)
  JOIN demo_hours dh ON dh.station_id = s.station_id AND dh.dn = date_diff('day', DATE '2000-01-01', CAST(h.t AS DATE))
),
seasonal AS (
  SELECT *,
    (1 - cos(2 * pi() * (doy - 15) / 365.25)) / 2 AS winter,
    u('wet', region, dn) AS u_wet,
    u('depth', region, dn) AS u_depth,
    u('start', region, dn) AS u_start,
    u('dur', region, dn) AS u_dur,
    u('cloud', station_id, dn) AS u_cloud,
    u('dd', station_id, dn) AS u_dd,
    u('n', station_id, t) AS u_n,
    u('n2', station_id, t) AS u_n2,
    u('n3', station_id, t) AS u_n3,
    2.2 * sin(2 * pi() * dn / 7.3 + region * 0.7) + 1.4 * sin(2 * pi() * dn / 13.7 + region * 1.3) + 0.8 * sin(2 * pi() * dn / 3.1 + region * 2.1) AS anom
  FROM base
),
wetness AS (
  SELECT *,
    (0.04 + (1 - east) * 0.30 * winter + east * (0.10 + 0.12 * (1 - winter)) + CASE WHEN model_elev > 600 THEN 0.04 ELSE 0 END)
      * CASE WHEN lat > -31.5 AND lon < 20.5 THEN 0.35 ELSE 1 END AS p_wet
  FROM seasonal
),
weather AS (
  SELECT *,
    u_wet < p_wet AS wet,
    -ln(1 - u_depth) * 6.0 * (1 + model_elev / 1500) AS day_rain,
    floor(u_start * 24) AS rain_start,
    3 + floor(u_dur * 10) AS rain_dur,
    radians(23.44) * sin(2 * pi() * (284 + doy) / 365) AS decl
  FROM wetness
),
physics AS (
  SELECT *,
    CASE WHEN wet THEN 0.3 + 0.15 * u_cloud ELSE 0.7 + 0.3 * u_cloud END AS clear,
    model_temp + (u_n - 0.5) * 0.8 AS temp,
    sin(radians(lat)) * sin(decl) + cos(radians(lat)) * cos(decl) * cos(radians(15 * (hr + 0.5 + (lon - 30) / 15 - 12))) AS sin_alt,
    CASE WHEN wet AND ((hr - rain_start + 24) % 24) < rain_dur THEN round(day_rain / rain_dur / 0.2) * 0.2 ELSE 0 END AS rain_raw
  FROM weather
),
moist AS (
  SELECT *,
    least(temp, temp - CASE WHEN wet THEN 0.5 + u_dd ELSE 2.5 + 9 * cont * u_dd + 2 * (1 - cos(2 * pi() * (hr - 15) / 24)) / 2 END) AS dew_raw,
    greatest(0.2, 2.5 + 2.0 * (1 - cont) + 1.2 * cos(2 * pi() * (hr - 15) / 24) + 0.4 * anom + (u_n2 - 0.5) * 1.5) AS ws_raw
  FROM physics
),
derived AS (
  SELECT *,
    100 * exp(17.625 * dew_raw / (243.04 + dew_raw) - 17.625 * temp / (243.04 + temp)) AS rh_raw,
    CASE WHEN sin_alt <= 0 THEN 0 ELSE 1050 * pow(sin_alt, 1.2) * clear END AS rs_raw
  FROM moist
)
SELECT
  station_id,
  t AS time,
  CASE WHEN NOT out_temp THEN round(temp, 1) END AS temperature_mean,
  CASE WHEN NOT out_temp THEN round(temp - 0.3 - 0.4 * u_n3, 1) END AS temperature_min,
  CASE WHEN NOT out_temp THEN round(temp + 0.3 + 0.4 * u_n2, 1) END AS temperature_max,
  CASE WHEN has_rain AND NOT out_rain THEN round(rain_raw, 1) END AS rain,
  CASE WHEN has_solar AND NOT out_solar THEN round(rs_raw, 0) END AS solar_radation,
  CASE WHEN has_solar AND NOT out_solar THEN CASE WHEN sin_alt > 0.05 THEN round(60 * least(1, greatest(0, (clear - 0.3) / 0.6))) ELSE 0 END END AS sunshine_duration,
  CASE WHEN has_wind AND NOT out_wind THEN round(((CASE WHEN wet THEN 315 WHEN winter < 0.5 THEN 150 ELSE 200 END) + 80 * (u_n3 - 0.5) + 360) % 360) END AS wind_direction,
  CASE WHEN has_leaf AND NOT out_leaf THEN
    CASE WHEN rain_raw > 0 THEN 60 WHEN rh_raw >= 90 THEN round(30 + 30 * u_n) WHEN rh_raw >= 85 AND sin_alt <= 0 THEN round(20 * u_n) ELSE 0 END END AS leaf_wetness,
  CASE WHEN has_wind AND NOT out_wind THEN round(ws_raw, 1) END AS wind_speed,
  CASE WHEN has_wind AND NOT out_wind THEN round(ws_raw * 1.4 + 0.5 * u_n, 1) END AS wind_speed_max,
  CASE WHEN has_evap AND NOT out_evap THEN round(greatest(0, (rs_raw * 0.0011 + 0.02 * ws_raw) * (1 - rh_raw / 100)), 2) END AS evaporation,
  CASE WHEN has_humid AND NOT out_humid THEN round(dew_raw, 1) END AS dew_point,
  CASE WHEN has_humid AND NOT out_humid THEN round(rh_raw, 0) END AS humidity,
  CASE WHEN has_humid AND NOT out_humid THEN greatest(1, round(rh_raw - 2 - 3 * u_n3, 0)) END AS humidity_min,
  CASE WHEN has_humid AND NOT out_humid THEN least(100, round(rh_raw + 2 + 3 * u_n2, 0)) END AS humidity_max
FROM (
  SELECT *,
    -- Outages: a whole fortnight (3 %) or a single day (0.4 %) per sensor group.
    u('o-temp', station_id, dn // 14) < 0.03 OR u('d-temp', station_id, dn) < 0.004 AS out_temp,
    u('o-rain', station_id, dn // 14) < 0.03 OR u('d-rain', station_id, dn) < 0.004 AS out_rain,
    u('o-solar', station_id, dn // 14) < 0.03 OR u('d-solar', station_id, dn) < 0.004 AS out_solar,
    u('o-wind', station_id, dn // 14) < 0.03 OR u('d-wind', station_id, dn) < 0.004 AS out_wind,
    u('o-leaf', station_id, dn // 14) < 0.05 OR u('d-leaf', station_id, dn) < 0.004 AS out_leaf,
    u('o-evap', station_id, dn // 14) < 0.04 OR u('d-evap', station_id, dn) < 0.004 AS out_evap,
    u('o-humid', station_id, dn // 14) < 0.03 OR u('d-humid', station_id, dn) < 0.004 AS out_humid
  FROM derived
)
ORDER BY station_id, time`;

/** Fills table demo_hours (station_id, dn: days since 2000-01-01, temps: 24 hourly °C) with the demo weather at every station. */
async function appendDemoHours(
  con: import('@duckdb/node-api').DuckDBConnection,
  stations: DemoStation[],
  o: Required<DemoStationOptions>,
): Promise<void> {
  const { LIST, DOUBLE } = await import('@duckdb/node-api');
  const sites: Site[] = stations.map((s) => ({ lon: s.lon, lat: s.lat, elevation: s.model_elev, coastKm: s.coast_km }));
  const firstDay = Date.parse(`${o.start}T00:00:00Z`) / 86_400_000;
  const lastDay = Date.parse(`${o.end}T00:00:00Z`) / 86_400_000;
  const hours = siteHours(new SiteClimates(sites), firstDay, lastDay);
  const since2000 = Date.UTC(2000, 0, 1) / 86_400_000;
  await con.run('CREATE TABLE demo_hours (station_id VARCHAR, dn BIGINT, temps DOUBLE[])');
  const appender = await con.createAppender('demo_hours');
  const type = LIST(DOUBLE);
  stations.forEach((s, k) => {
    const series = hours[k]!;
    for (let d = 0; d <= lastDay - firstDay; d++) {
      appender.appendVarchar(s.station_id);
      appender.appendBigInt(BigInt(firstDay + d - since2000));
      appender.appendList(Array.from(series.subarray(d * 24, d * 24 + 24)), type);
      appender.endRow();
    }
  });
  appender.closeSync();
}

/**
 * Writes `stations.csv` and `hourly.csv|parquet` into `dir` and returns
 * their paths. Deterministic for the same options.
 */
export async function writeDemoStationInputs(
  dir: string,
  options: DemoStationOptions = {},
): Promise<{ stations: string; hourly: string }> {
  const o: Required<DemoStationOptions> = {
    stations: options.stations ?? 130,
    start: options.start ?? '2023-01-01',
    end: options.end ?? '2024-12-31',
    format: options.format ?? 'parquet',
    seed: options.seed ?? 20240101,
  };
  for (const [option, d] of [
    ['start', o.start],
    ['end', o.end],
  ] as const) {
    const t = Date.parse(`${d}T00:00:00Z`);
    // A date that names no day (2024-02-30) is refused, not rolled into the next month.
    if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d)
      throw new BuildError('invalid_option', `Demo dates must be yyyy-mm-dd; got "${d}".`, { option });
  }
  if (o.end < o.start)
    throw new BuildError('invalid_option', `The demo's end (${o.end}) is before its start (${o.start}).`, {
      option: 'end',
    });
  const elevation = await loadElevation();
  const stations = await demoStations(o, elevation);
  const stationsPath = join(dir, 'stations.csv');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    stationsPath,
    `${['station_id', 'name', 'lat', 'lon', 'elevation'].join(',')}\n${stations.map((s) => csvLine([s.station_id, s.name, s.lat, s.lon, s.elevation])).join('\n')}\n`,
  );
  // Loaded here, not at the top: climate-query/node must import without this optional peer.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const con = await db.connect();
  try {
    await con.run(`SET autoload_known_extensions=false`);
    await con.run(`SET autoinstall_known_extensions=false`);
    await con.run(`CREATE MACRO u(tag, a, b) AS (hash(tag, a, b) % 1000003)::DOUBLE / 1000003`);
    await con.run(`CREATE TABLE demo_stations (station_id VARCHAR, name VARCHAR, lat DOUBLE, lon DOUBLE, elevation DOUBLE, model_elev DOUBLE, cont DOUBLE,
      region INTEGER, start_ts VARCHAR, end_ts VARCHAR, has_rain BOOLEAN, has_humid BOOLEAN, has_solar BOOLEAN, has_wind BOOLEAN, has_leaf BOOLEAN, has_evap BOOLEAN)`);
    const appender = await con.createAppender('demo_stations');
    for (const s of stations) {
      appender.appendVarchar(s.station_id);
      appender.appendVarchar(s.name);
      appender.appendDouble(s.lat);
      appender.appendDouble(s.lon);
      if (s.elevation === null) appender.appendNull();
      else appender.appendDouble(s.elevation);
      appender.appendDouble(s.model_elev);
      appender.appendDouble(s.cont);
      appender.appendInteger(s.region);
      appender.appendVarchar(s.start_ts);
      appender.appendVarchar(s.end_ts);
      for (const b of [s.has_rain, s.has_humid, s.has_solar, s.has_wind, s.has_leaf, s.has_evap])
        appender.appendBoolean(b);
      appender.endRow();
    }
    appender.closeSync();
    await appendDemoHours(con, stations, o);
    const hourlyPath = join(dir, `hourly.${o.format}`);
    const copyOpts =
      o.format === 'csv'
        ? `(FORMAT csv, HEADER true, TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%S')`
        : `(FORMAT parquet, COMPRESSION zstd)`;
    const sql = HOURLY_SQL.replace('$start', `'${o.start} 00:00:00'`).replace('$end', `'${o.end} 23:00:00'`);
    await con.run(`COPY (${sql}) TO '${hourlyPath.replace(/'/g, "''")}' ${copyOpts}`);
    return { stations: stationsPath, hourly: hourlyPath };
  } finally {
    con.closeSync();
  }
}
