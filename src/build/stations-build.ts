/**
 * `climate-query build` for stations: validates a user's station and
 * observation files (CSV or Parquet), derives the missing daily and monthly
 * tables, and publishes the station archive (docs/data.md): one zstd
 * Parquet file per station and time scale, sorted by time, with row groups
 * small enough that a station-year is a small contiguous read; then indexes
 * it (station-index-build.ts). Runs on native DuckDB (@duckdb/node-api)
 * with a memory limit and a temp directory: the observations never pass
 * through JavaScript. Everything is written into a staging folder first and
 * moved into place only when complete, so a failed build leaves no
 * half-written archive.
 */
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import type { StationsSection } from '../dataset/catalog.ts';
import { DAILY_FROM_HOURLY, DAILY_MIN_HOURS, MONTHLY_FROM_DAILY, MONTHLY_MAX_MISSING_DAYS, type DeriveRule } from './derive-rules.ts';
import { updateCatalog } from './catalog-writer.ts';
import { BuildInputError, STATION_YEARS, ident, indexStationArchive, lit, openBuildDuckDB } from './station-index-build.ts';

export { BuildInputError };

/** Input files of a station build; `stations` and at least one scale are required. */
export interface StationInputs {
  stations: string;
  hourly?: string;
  daily?: string;
  monthly?: string;
}

/**
 * Parquet format version 2 pages let DuckDB delta-encode the time column:
 * 61 bytes instead of 16.5 KB per 4,096 hours (measured on the demo), a
 * quarter of an hourly file. Rows per row group of a station file, per scale: 4,096 hours (≈ 5.6
 * months) so one year of hourly data reads 3–4 row groups of one file;
 * daily and monthly files are small enough for 2,048-row groups (5.6 and
 * 170 years). DuckDB rounds row groups to multiples of 2,048 rows.
 */
export const ROW_GROUP_SIZE: Record<StationTimeScale, number> = { hourly: 4096, daily: 2048, monthly: 2048 };

/** A station id as one file-name segment: percent-encoded like Hive partitions (`station_id=b%3Bc`). */
export function fileSegment(id: string): string {
  return `station_id=${encodeURIComponent(id).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function reader(path: string): string {
  const ext = extname(path).toLowerCase();
  if (ext === '.parquet') return `read_parquet(${lit(path)})`;
  if (ext === '.csv' || ext === '.txt') return `read_csv(${lit(path)}, header = true, all_varchar = true)`;
  throw new BuildInputError(`${path}: unknown file type "${ext}"; use .csv or .parquet.`);
}

async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

async function columnsOf(con: DuckDBConnection, relation: string): Promise<string[]> {
  return (await rows(con, `DESCRIBE SELECT * FROM ${relation}`)).map((r) => String(r.column_name));
}

async function loadStations(con: DuckDBConnection, path: string): Promise<void> {
  const cols = await columnsOf(con, reader(path));
  for (const need of ['station_id', 'name', 'lat', 'lon']) {
    if (!cols.includes(need)) throw new BuildInputError(`${path}: missing column "${need}"; a stations file has station_id, name, lat, lon and optionally elevation (m).`);
  }
  const extra = cols.filter((c) => !['station_id', 'name', 'lat', 'lon', 'elevation'].includes(c));
  if (extra.length) throw new BuildInputError(`${path}: unknown column(s) ${extra.join(', ')}; a stations file has station_id, name, lat, lon, elevation.`);
  const elev = cols.includes('elevation') ? 'elevation' : 'NULL';
  await con.run(`CREATE TEMP TABLE raw_stations AS SELECT row_number() OVER () AS __row, CAST(station_id AS VARCHAR) AS station_id, CAST(name AS VARCHAR) AS name,
    CAST(lat AS VARCHAR) AS lat_t, CAST(lon AS VARCHAR) AS lon_t, CAST(${elev} AS VARCHAR) AS elev_t FROM ${reader(path)}`);
  const bad = await rows(con, `SELECT __row, station_id, lat_t, lon_t, elev_t,
      coalesce(TRY_CAST(lat_t AS DOUBLE) BETWEEN -90 AND 90, false) AS lat_ok, coalesce(TRY_CAST(lon_t AS DOUBLE) BETWEEN -180 AND 180, false) AS lon_ok
    FROM raw_stations
    WHERE station_id IS NULL OR trim(station_id) = '' OR TRY_CAST(lat_t AS DOUBLE) NOT BETWEEN -90 AND 90 OR TRY_CAST(lat_t AS DOUBLE) IS NULL
      OR TRY_CAST(lon_t AS DOUBLE) NOT BETWEEN -180 AND 180 OR TRY_CAST(lon_t AS DOUBLE) IS NULL
      OR (elev_t IS NOT NULL AND trim(elev_t) <> '' AND TRY_CAST(elev_t AS DOUBLE) IS NULL) ORDER BY __row LIMIT 1`);
  if (bad.length) {
    const b = bad[0]!;
    // Say which check failed, in the file's own terms (data rows from 1; a CSV's line is row + 1).
    const where = `${path}: row ${String(b.__row)}${b.station_id === null || String(b.station_id).trim() === '' ? '' : ` (station "${String(b.station_id)}")`}`;
    const what =
      b.station_id === null || String(b.station_id).trim() === ''
        ? 'column "station_id" is empty'
        : !b.lat_ok
          ? `column "lat" holds "${String(b.lat_t ?? '')}", not a latitude (a number from -90 to 90)`
          : !b.lon_ok
            ? `column "lon" holds "${String(b.lon_t ?? '')}", not a longitude (a number from -180 to 180)`
            : `column "elevation" holds "${String(b.elev_t)}", not a number (metres; leave it empty when unknown)`;
    throw new BuildInputError(`${where}, ${what}. Fix the row, or remove the station if its position is not known.`);
  }
  const dup = await rows(con, `SELECT station_id FROM raw_stations GROUP BY 1 HAVING count(*) > 1 LIMIT 1`);
  if (dup.length) throw new BuildInputError(`${path}: station_id "${String(dup[0]!.station_id)}" appears more than once.`);
  await con.run(`CREATE TEMP TABLE stations AS SELECT station_id, name, CAST(lat_t AS DOUBLE) AS lat, CAST(lon_t AS DOUBLE) AS lon,
    CAST(NULLIF(trim(elev_t), '') AS DOUBLE) AS elevation FROM raw_stations ORDER BY station_id`);
}

const TIME_TYPE: Record<StationTimeScale, string> = { hourly: 'TIMESTAMP', daily: 'DATE', monthly: 'DATE' };

/** Column types that are numbers by construction (Parquet inputs); CSV columns are text and are checked cell by cell. */
const NUMERIC_TYPE = /^(DOUBLE|FLOAT|REAL|DECIMAL|INTEGER|BIGINT|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT)/;

/**
 * Rows per batch of stations for the statements whose memory DuckDB cannot
 * bound: holistic aggregates (median) keep every value of a group in memory,
 * and the duplicate check's hash table holds a row per (station, time).
 * Measured on 300 stations × 10 years hourly (21 M rows): the daily
 * derivation in one statement peaked at 3.0 GB RSS against a 1.5 GB
 * memory_limit.
 */
const BATCH_ROWS = 4_000_000;

/** The table's station ids in batches of about {@link BATCH_ROWS} rows, as SQL IN lists. */
async function stationBatches(con: DuckDBConnection, table: string): Promise<string[]> {
  const counts = await rows(con, `SELECT station_id, count(*) AS n FROM ${table} GROUP BY station_id ORDER BY station_id`);
  const batches: string[][] = [];
  let current: string[] = [];
  let n = 0;
  for (const r of counts) {
    if (current.length && n + Number(r.n) > BATCH_ROWS) {
      batches.push(current);
      current = [];
      n = 0;
    }
    current.push(lit(String(r.station_id)));
    n += Number(r.n);
  }
  if (current.length) batches.push(current);
  return batches.map((b) => `(${b.join(', ')})`);
}

async function loadObservations(con: DuckDBConnection, scale: StationTimeScale, path: string): Promise<void> {
  const described = await rows(con, `DESCRIBE SELECT * FROM ${reader(path)}`);
  const colType = new Map(described.map((r) => [String(r.column_name), String(r.column_type)]));
  const cols = [...colType.keys()];
  for (const need of ['station_id', 'time']) {
    if (!cols.includes(need)) throw new BuildInputError(`${path}: missing column "${need}"; an observation file has station_id, time and ${scale} data-type columns.`);
  }
  const types = STATION_TYPES[scale];
  const unknown = cols.filter((c) => c !== 'station_id' && c !== 'time' && !types.includes(c));
  if (unknown.length) {
    throw new BuildInputError(`${path}: column(s) ${unknown.map((u) => `"${u}"`).join(', ')} are not ${scale} data types. Valid: ${types.join(', ')}.`);
  }
  const present = types.filter((t) => cols.includes(t));
  const raw = `raw_${scale}`;
  // Row numbers as the file has them (data rows from 1; a CSV's line is row + 1).
  await con.run(`CREATE TEMP TABLE ${raw} AS SELECT row_number() OVER () AS __row, * FROM ${reader(path)}`);
  const at = (r: Record<string, unknown>, column: string) => `${path}: row ${String(r.__row)} (station "${String(r.station_id)}"), column "${column}"`;

  // Monthly times may be written yyyy-mm; daily and monthly are dates.
  const timeText = `trim(CAST(time AS VARCHAR))`;
  const timeExpr =
    scale === 'monthly'
      ? `TRY_CAST(CASE WHEN length(${timeText}) = 7 THEN ${timeText} || '-01' ELSE ${timeText} END AS DATE)`
      : `TRY_CAST(${timeText} AS ${TIME_TYPE[scale]})`;
  const want = { hourly: 'yyyy-mm-dd hh:00:00', daily: 'yyyy-mm-dd', monthly: 'yyyy-mm or yyyy-mm-01' }[scale];
  const badTime = await rows(con, `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE time IS NULL OR ${timeExpr} IS NULL ORDER BY __row LIMIT 1`);
  if (badTime.length) throw new BuildInputError(`${at(badTime[0]!, 'time')}: "${String(badTime[0]!.t)}" is not a ${scale} time (${want}).`);
  // A zone would be dropped by the cast above, filing a UTC reading two hours early (NOAA ISD is in UTC): refused instead.
  const zoneFix = 'Times are local standard time (SAST, UTC+2) without a zone: convert them (10:00 UTC is 12:00 SAST) and drop the zone; the build never guesses one.';
  if (/WITH TIME ZONE/i.test(colType.get('time') ?? '')) {
    throw new BuildInputError(`${path}: column "time" holds times with a time zone (${colType.get('time')}). ${zoneFix}`);
  }
  const zoned = await rows(con, `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE regexp_matches(${timeText}, '\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?\\s*([zZ]|[+-]\\d{2}(:?\\d{2})?)$') ORDER BY __row LIMIT 1`);
  if (zoned.length) throw new BuildInputError(`${at(zoned[0]!, 'time')}: "${String(zoned[0]!.t)}" carries a time zone. ${zoneFix}`);
  if (scale !== 'hourly') {
    // One rule (docs/data.md): a day or month is its date; a time of day other than midnight is refused, never cut off.
    const withTime = await rows(con, `SELECT __row, station_id, ${timeText} AS t FROM ${raw}
      WHERE CAST(TRY_CAST(${timeText} AS TIMESTAMP) AS TIME) <> TIME '00:00:00' ORDER BY __row LIMIT 1`);
    if (withTime.length) {
      throw new BuildInputError(`${at(withTime[0]!, 'time')}: "${String(withTime[0]!.t)}" has a time of day; ${scale} times are dates (${want}), the day running from 00:00 to 24:00 local standard time. Aggregate sub-daily readings into an hourly file instead.`);
    }
  }
  const outOfYears = await rows(con, `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE year(${timeExpr}) NOT BETWEEN ${STATION_YEARS.first} AND ${STATION_YEARS.last} ORDER BY __row LIMIT 1`);
  if (outOfYears.length) {
    throw new BuildInputError(`${at(outOfYears[0]!, 'time')}: "${String(outOfYears[0]!.t)}" is outside the years ${STATION_YEARS.first}–${STATION_YEARS.last} that queries accept.`);
  }
  for (const t of present) {
    // Numeric Parquet columns are numbers by construction; text columns (CSV) are checked cell by cell.
    if (NUMERIC_TYPE.test(colType.get(t) ?? '')) continue;
    const nan = await rows(con, `SELECT __row, station_id, ${ident(t)} AS v FROM ${raw} WHERE ${ident(t)} IS NOT NULL AND trim(${ident(t)}) <> '' AND TRY_CAST(${ident(t)} AS DOUBLE) IS NULL ORDER BY __row LIMIT 1`);
    if (nan.length) throw new BuildInputError(`${at(nan[0]!, t)}: holds "${String(nan[0]!.v)}", which is not a number. Leave a cell empty for a missing value.`);
  }
  // Numeric columns are cast directly (exact); only text columns go through trim and '' → null.
  const valueCols = types.map((t) =>
    !present.includes(t)
      ? `CAST(NULL AS DOUBLE) AS ${ident(t)}`
      : NUMERIC_TYPE.test(colType.get(t) ?? '')
        ? `CAST(${ident(t)} AS DOUBLE) AS ${ident(t)}`
        : `CAST(NULLIF(trim(CAST(${ident(t)} AS VARCHAR)), '') AS DOUBLE) AS ${ident(t)}`,
  );
  await con.run(`CREATE TEMP TABLE ${scale} AS SELECT __row, CAST(station_id AS VARCHAR) AS station_id, ${timeExpr} AS time, ${valueCols.join(', ')} FROM ${raw}`);
  await con.run(`DROP TABLE ${raw}`);

  const offGrid =
    scale === 'hourly' ? `minute(time) <> 0 OR second(time) <> 0 OR microsecond(time) <> 0` : scale === 'monthly' ? `day(time) <> 1` : 'false';
  const off = await rows(con, `SELECT __row, station_id, CAST(time AS VARCHAR) AS t FROM ${scale} WHERE ${offGrid} ORDER BY __row LIMIT 1`);
  if (off.length) {
    // Real networks report at other minutes (NOAA ISD at hh:51); which hour such a reading belongs to is the data owner's call.
    const fix = scale === 'hourly' ? ' Make readings at other minutes hourly first (average them per hour, or keep the one nearest the hour): the build never moves a reading to another hour. docs/data.md shows one way with DuckDB.' : '';
    throw new BuildInputError(`${at(off[0]!, 'time')}: "${String(off[0]!.t)}" is not on the ${scale} grid (hours on the hour; months on day 1).${fix}`);
  }
  const orphan = await rows(con, `SELECT __row, station_id FROM ${scale} WHERE station_id NOT IN (SELECT station_id FROM stations) ORDER BY __row LIMIT 1`);
  if (orphan.length) throw new BuildInputError(`${at(orphan[0]!, 'station_id')}: station_id "${String(orphan[0]!.station_id)}" is not in the stations file.`);
  // Per batch of stations (bounded memory); the first duplicate in file order over all batches is reported.
  let dup: Record<string, unknown> | undefined;
  for (const batch of await stationBatches(con, scale)) {
    const d = await rows(con, `SELECT max(__row) AS __row, station_id, CAST(time AS VARCHAR) AS t FROM ${scale} WHERE station_id IN ${batch} GROUP BY station_id, time HAVING count(*) > 1 ORDER BY 1 LIMIT 1`);
    if (d.length && (!dup || Number(d[0]!.__row) < Number(dup.__row))) dup = d[0];
  }
  if (dup) throw new BuildInputError(`${at(dup, 'time')}: station "${String(dup.station_id)}" has two rows for time ${String(dup.t)}.`);
  await con.run(`ALTER TABLE ${scale} DROP COLUMN __row`);
}

function aggExpr(rule: DeriveRule, minCount: string, fullCount: string): string {
  const x = ident(rule.src);
  const base = {
    mean: `avg(${x})`,
    min: `min(${x})`,
    max: `max(${x})`,
    median: `median(${x})`,
    sum: `sum(${x})`,
    std: `stddev_samp(${x})`,
    circmean: `(degrees(atan2(avg(sin(radians(${x}))), avg(cos(radians(${x}))))) + 360) % 360`,
    // Median of the directions turned so their circular mean sits at 180°, turned back.
    circmedian: `(median((${x} - ${ident(`cm__${rule.src}`)} + 540) % 360) + any_value(${ident(`cm__${rule.src}`)}) + 540) % 360`,
  }[rule.agg];
  const scaled = rule.factor === undefined ? base : `(${base}) * ${rule.factor}`;
  return `CASE WHEN count(${x}) >= ${rule.complete ? fullCount : minCount} THEN ${scaled} END AS ${ident(rule.out)}`;
}

function deriveSql(rules: DeriveRule[], from: StationTimeScale, to: StationTimeScale, stations: string): string {
  const period = to === 'daily' ? `CAST(time AS DATE)` : `CAST(date_trunc('month', time) AS DATE)`;
  const full = to === 'daily' ? '24' : `day(last_day(min(time)))`;
  const min = to === 'daily' ? String(DAILY_MIN_HOURS) : `day(last_day(min(time))) - ${MONTHLY_MAX_MISSING_DAYS}`;
  const circ = [...new Set(rules.filter((r) => r.agg === 'circmedian').map((r) => r.src))];
  const cm = circ.map((c) => `(degrees(atan2(avg(sin(radians(${ident(c)}))), avg(cos(radians(${ident(c)}))))) + 360) % 360 AS ${ident(`cm__${c}`)}`);
  const present = new Set(rules.map((r) => r.out));
  const missing = STATION_TYPES[to].filter((t) => !present.has(t) && t !== 'et0');
  return `WITH src AS (SELECT *, ${period} AS p FROM ${from} WHERE station_id IN ${stations}),
    cm AS (SELECT station_id, p${cm.length ? ', ' : ''}${cm.join(', ')} FROM src GROUP BY station_id, p),
    j AS (SELECT src.*${circ.map((c) => `, cm.${ident(`cm__${c}`)}`).join('')} FROM src JOIN cm USING (station_id, p))
    SELECT station_id, p AS time, ${rules.map((r) => aggExpr(r, min, full)).join(',\n')}
    ${missing.map((m) => `, CAST(NULL AS DOUBLE) AS ${ident(m)}`).join('')}
    FROM j GROUP BY station_id, p`;
}

/** Creates `table` from `from` by `rules`, one batch of stations at a time (bounded memory, see {@link BATCH_ROWS}). */
async function derive(con: DuckDBConnection, table: string, rules: DeriveRule[], from: StationTimeScale, to: StationTimeScale): Promise<void> {
  const batches = await stationBatches(con, from);
  await con.run(`CREATE TEMP TABLE ${table} AS ${deriveSql(rules, from, to, batches[0] ?? '(NULL)')}`);
  for (const batch of batches.slice(1)) await con.run(`INSERT INTO ${table} ${deriveSql(rules, from, to, batch)}`);
}

/**
 * FAO-56 Penman–Monteith reference evapotranspiration (mm/day), eqs. 6–50
 * of Allen et al. (1998), from daily Tmax/Tmin (°C), RHmax/RHmin (%), mean
 * wind at 2 m (m/s), solar radiation (MJ/m²), station elevation (m) and
 * latitude. Null when any input is missing.
 */
const ET0_SQL = `
WITH i AS (
  SELECT d.station_id, d.time, d.temperature_max AS tx, d.temperature_min AS tn, d.humidity_max AS rhx, d.humidity_min AS rhn,
    d.wind_speed_mean AS u2, d.solar_radiation_sum AS rs, s.elevation AS z, radians(s.lat) AS phi, dayofyear(d.time) AS j
  FROM daily_derived d JOIN stations s USING (station_id)
), a AS (
  SELECT *, (tx + tn) / 2 AS t,
    0.6108 * exp(17.27 * tx / (tx + 237.3)) AS eox, 0.6108 * exp(17.27 * tn / (tn + 237.3)) AS eon,
    0.665e-3 * 101.3 * pow((293 - 0.0065 * z) / 293, 5.26) AS gamma,
    1 + 0.033 * cos(2 * pi() * j / 365) AS dr, 0.409 * sin(2 * pi() * j / 365 - 1.39) AS decl
  FROM i
), b AS (
  SELECT *, 4098 * (0.6108 * exp(17.27 * t / (t + 237.3))) / pow(t + 237.3, 2) AS delta,
    (eox + eon) / 2 AS es, (eon * rhx / 100 + eox * rhn / 100) / 2 AS ea,
    acos(greatest(-1, least(1, -tan(phi) * tan(decl)))) AS ws
  FROM a
), c AS (
  SELECT *, 24 * 60 / pi() * 0.0820 * dr * (ws * sin(phi) * sin(decl) + cos(phi) * cos(decl) * sin(ws)) AS ra FROM b
), d AS (
  SELECT *, (1 - 0.23) * rs - 4.903e-9 * (pow(tx + 273.16, 4) + pow(tn + 273.16, 4)) / 2 * (0.34 - 0.14 * sqrt(ea))
      * (1.35 * least(1, rs / ((0.75 + 2e-5 * z) * ra)) - 0.35) AS rn
  FROM c
)
SELECT station_id, time,
  CASE WHEN tx IS NULL OR tn IS NULL OR rhx IS NULL OR rhn IS NULL OR u2 IS NULL OR rs IS NULL OR z IS NULL THEN NULL
       ELSE (0.408 * delta * rn + gamma * 900 / (t + 273) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2)) END AS et0
FROM d`;

/** Writes the archive (stations.parquet and one file per station and scale) into `dir`. */
async function writeArchive(con: DuckDBConnection, dir: string, have: ReadonlySet<StationTimeScale>): Promise<void> {
  await con.run(`COPY (SELECT station_id, name, lat, lon, elevation FROM stations ORDER BY station_id) TO ${lit(join(dir, 'stations.parquet'))} (FORMAT parquet, COMPRESSION zstd)`);
  for (const scale of STATION_TIME_SCALES) {
    if (!have.has(scale)) continue;
    const cols = STATION_TYPES[scale].map(ident).join(', ');
    // Sorted once, so each station's COPY below reads only its own row groups (zone maps).
    await con.run(`CREATE TEMP TABLE sorted_${scale} AS SELECT station_id, time, ${cols} FROM ${scale} ORDER BY station_id, time`);
    await con.run(`DROP TABLE ${scale}`);
    // One COPY per station rather than PARTITION_BY: exactly one sorted file per station whatever
    // the number of stations (a partitioned write may split a partition when it has too many open),
    // and as fast on the demo (125 s either way on this loaded machine; most of a build is indexing).
    // A station's file holds only the types it has a value of: a column of nulls costs nothing to
    // decode but a column-chunk entry per row group in the footer, which every cold read downloads
    // (daily files have 42 type columns; measured on the 2,000-station network archive, 25 years:
    // 10 KB footers with every column, the data of a year being 15 KB).
    const types = STATION_TYPES[scale];
    const counts = await rows(con, `SELECT station_id, ${types.map((t, i) => `count(${ident(t)}) AS c${i}`).join(', ')} FROM sorted_${scale} GROUP BY station_id ORDER BY station_id`);
    for (const c of counts) {
      const id = String(c.station_id);
      const kept = types.filter((_, i) => Number(c[`c${i}`]) > 0).map(ident);
      const folder = join(dir, scale, fileSegment(id));
      await mkdir(folder, { recursive: true });
      await con.run(`COPY (SELECT station_id, time${kept.map((k) => `, ${k}`).join('')} FROM sorted_${scale} WHERE station_id = ${lit(id)} ORDER BY time)
        TO ${lit(join(folder, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE ${ROW_GROUP_SIZE[scale]})`);
    }
    await con.run(`DROP TABLE sorted_${scale}`);
  }
}

/**
 * Builds the station part of the dataset in `outDir` from `inputs` and
 * records it in catalog.json. Throws {@link BuildInputError} on bad input;
 * the dataset's previous station archive, if any, is then left as it was.
 */
export async function buildStations(inputs: StationInputs, outDir: string, name = 'dataset'): Promise<StationsSection> {
  if (!inputs.hourly && !inputs.daily && !inputs.monthly) {
    throw new BuildInputError('Give at least one observation file (hourly, daily or monthly) with the stations file.');
  }
  const temp = await mkdtemp(join(tmpdir(), 'climate-query-build-'));
  const duck = await openBuildDuckDB(temp);
  const { con } = duck;
  await mkdir(outDir, { recursive: true });
  const staging = join(outDir, `.stations-building-${process.pid}`);
  try {
    await loadStations(con, inputs.stations);
    const have = new Set<StationTimeScale>();
    for (const scale of STATION_TIME_SCALES) {
      const path = inputs[scale];
      if (path) {
        await loadObservations(con, scale, path);
        have.add(scale);
      }
    }
    if (!have.has('daily') && have.has('hourly')) {
      await derive(con, 'daily_derived', DAILY_FROM_HOURLY, 'hourly', 'daily');
      const order = STATION_TYPES.daily.map((t) => (t === 'et0' ? 'e.et0' : `d.${ident(t)}`));
      await con.run(`CREATE TEMP TABLE daily AS SELECT d.station_id, d.time, ${order.join(', ')}
        FROM daily_derived d JOIN (${ET0_SQL}) e USING (station_id, time)`);
      await con.run(`DROP TABLE daily_derived`);
      have.add('daily');
    }
    if (!have.has('monthly') && have.has('daily')) {
      await derive(con, 'monthly', MONTHLY_FROM_DAILY, 'daily', 'monthly');
      have.add('monthly');
    }
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await writeArchive(con, staging, have);
    duck.close();
    const section = await indexStationArchive(staging, 'stations');
    // Publish: the old archive goes only once the new one is complete.
    const target = join(outDir, 'stations');
    const old = join(outDir, `.stations-old-${process.pid}`);
    await rm(old, { recursive: true, force: true });
    await rename(target, old).catch(() => undefined);
    await rename(staging, target);
    await rm(old, { recursive: true, force: true });
    await updateCatalog(outDir, name, (c) => {
      c.stations = section;
    });
    return section;
  } finally {
    try {
      duck.close();
    } catch {
      // Already closed after writing.
    }
    await rm(staging, { recursive: true, force: true });
    await rm(temp, { recursive: true, force: true });
  }
}
