/**
 * `climate-query build` for stations: validates a user's station and
 * observation files (CSV or Parquet), derives the missing daily, dekadal and
 * monthly tables for every station without its own (what is loaded and
 * derived, and the zone, are planned first: station-plan.ts), merges them with the station
 * archive already in the dataset, and publishes the station archive (docs/data.md): one zstd
 * Parquet file per station and time scale, sorted by time, with row groups
 * small enough that a station-year is a small contiguous read; then indexes
 * it (station-index-build.ts). Runs on native DuckDB (@duckdb/node-api)
 * with a memory limit and a temp directory: the observations never pass
 * through JavaScript. Everything is written into a staging folder first and
 * moved into place only when complete, so a failed build leaves no
 * half-written archive.
 */
import { countOf } from '../contract/quote.ts';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import type { StationsSection } from '../dataset/catalog.ts';
import { physicalBounds, plausibleBounds } from '../contract/station-bounds.ts';
import { derivedDecimals, roundValueSql } from '../contract/station-type-info.ts';
import { deriveRulesInto, isComputedType, type DeriveRule } from '../contract/derive-rules.ts';
import { TIME_SCALES, stationScaleSpec } from '../contract/time-scales.ts';
import { readCatalogOrEmpty, updateCatalog } from './dataset/dataset-writer.ts';
import { stationArchiveFolder } from '../dataset/catalog-owners.ts';
import { archiveStaging, newArchiveFolder } from './dataset/station-archive-publish.ts';
import { withDatasetLock } from './dataset/dataset-lock.ts';
import { parseUtcOffset, utcOffsetLabel } from '../contract/utc-offset.ts';
import { planStationBuild, type StationInputs } from './station-plan.ts';
import { BuildError } from './build-error.ts';
import { ident, lit, openBuildDuckDB, rows } from './build-duckdb.ts';
import { STATION_YEARS, indexStationArchive, periodSql } from './station-index-build.ts';
import { BUILD_ID_KEY, newBuildId } from './build-id.ts';
import { workFolder } from './work-folder.ts';
import { type BuildProgress, quiet } from './build-progress.ts';

export { BuildError };
export { filesOf, type StationInputs } from './station-plan.ts';

/** How a station build treats the dataset it writes into. */
export interface StationBuildOptions {
  /**
   * Drop the dataset's station archive: only this build's stations and scales remain. Without it a
   * build is additive: it adds or replaces the (station, scale) series it is given or derives, and
   * keeps every other station and scale the dataset holds.
   */
  replace?: boolean;
  /**
   * Keep values outside their type's physical bounds (src/contract/station-bounds.ts) and count them
   * in the report, instead of refusing the build at the first one.
   */
  keepImplausible?: boolean;
  /**
   * The zone the dataset's station times are in: an offset ("+03:00") or an IANA name, resolved to
   * its standard time. Default: the dataset's own, else the contract's SAST (+02:00). Times in the
   * files without a zone are taken as in it; hourly times with one are converted into it.
   */
  timeZone?: string;
  /** A line for the catalog's attribution (an imported source's name, licence and citation), kept once. */
  attribution?: string;
  /** Told each step as it starts, for a progress line. */
  progress?: BuildProgress;
}

/** Key of the Parquet key-value metadata that says whether a station file was given or derived. */
export const SOURCE_KEY = 'climate_query_source';

/** What a station build did at one time scale (the build report, docs/data.md). */
export interface ScaleReport {
  /** Stations with a series of this scale in the dataset after the build. */
  stations: number;
  /** Stations whose series this build wrote from the given files. */
  given: number;
  /** Stations whose series this build derived (daily from hourly, monthly from daily). */
  derived: number;
  /** Stations whose series the dataset already held and this build kept as it was. */
  kept: number;
  /**
   * Stations with a given series of this scale (in this build's files or already in the dataset)
   * that this build could also have derived one for: the given series was used.
   */
  givenOverDerived: string[];
  /** Each given file with the rows read from it. */
  files: { path: string; rows: number; zoned: number }[];
  /** Rows read from the given files. */
  rowsRead: number;
  /** Rows refused. A refused row stops the build (nothing is written), so a finished build refused none. */
  rowsRefused: number;
  /** The refused rows, named (file, row, column, why). */
  refused: string[];
  /** Values outside their type's physical bounds that were kept (--keep-implausible): per column, how many and the first one named. */
  flagged: { column: string; values: number; first: string }[];
  /**
   * Values past their type's physical range but within what its instruments read (relative humidity
   * above 100 %, to 105 %): kept as measured; per column, how many and the first one named.
   */
  beyondPhysical: { column: string; values: number; first: string }[];
  /**
   * Types of this scale the build would derive for a quantity it holds but could not, their source
   * column being empty (hourly humidity without humidity_min: no daily humidity_min). Absent when none.
   */
  notDerived?: Array<{ type: string; from: string }>;
  /** Rows this build wrote (given and derived series). */
  rowsWritten: number;
  /** First and last period this build wrote, as answers key them; null when it wrote none. */
  first: string | null;
  last: string | null;
}

/** What a station build did: per scale, and for the stations. */
export interface StationBuildReport {
  ok: boolean;
  /** The error that stopped the build, when it did not finish. */
  error?: string;
  /** When a bad row stopped the build: that row, named. */
  refused?: string[];
  out: string;
  replace: boolean;
  stations: { total: number; inStationsFile: number; keptFromDataset: number };
  /** The zone every station time of the dataset is in ("+02:00"); absent when the build stopped before choosing it. */
  timeZone?: string;
  scales: Partial<Record<StationTimeScale, ScaleReport>>;
  seconds: number;
}

/** A (station, scale) series the dataset already holds. */
interface ExistingSeries {
  scale: StationTimeScale;
  id: string;
  /** Absolute path of its file. */
  file: string;
  /** `derived` when the file says so (written by a build that derived it); otherwise `given`. */
  source: 'given' | 'derived';
}

/** "a, b or c". */
/**
 * Parquet format version 2 pages let DuckDB delta-encode the time column:
 * 61 bytes instead of 16.5 KB per 4,096 hours (measured on the demo), a
 * quarter of an hourly file. Rows per row group of a station file, per scale: 4,096 hours (≈ 5.6
 * months) so one year of hourly data reads 3–4 row groups of one file;
 * daily and monthly files are small enough for 2,048-row groups (5.6 and
 * 170 years). DuckDB rounds row groups to multiples of 2,048 rows. Each scale's size is in its
 * description (contract/time-scales.ts).
 */
export const ROW_GROUP_SIZE: Record<StationTimeScale, number> = Object.fromEntries(
  STATION_TIME_SCALES.map((s) => [s, stationScaleSpec(s).rowGroupSize]),
) as unknown as Record<StationTimeScale, number>;

/** A station id as one file-name segment: percent-encoded like Hive partitions (`station_id=b%3Bc`). */
export function fileSegment(id: string): string {
  return `station_id=${encodeURIComponent(id).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function reader(path: string): string {
  const ext = extname(path).toLowerCase();
  if (ext === '.parquet') return `read_parquet(${lit(path)}, hive_partitioning = false)`;
  if (ext === '.csv' || ext === '.txt')
    return `read_csv(${lit(path)}, header = true, all_varchar = true, hive_partitioning = false)`;
  throw new BuildError('invalid_input', `${path}: unknown file type "${ext}"; use .csv or .parquet.`);
}

async function columnsOf(con: DuckDBConnection, relation: string): Promise<string[]> {
  return (await rows(con, `DESCRIBE SELECT * FROM ${relation}`)).map((r) => String(r.column_name));
}

async function loadStations(con: DuckDBConnection, path: string): Promise<void> {
  const cols = await columnsOf(con, reader(path));
  for (const need of ['station_id', 'name', 'lat', 'lon']) {
    if (!cols.includes(need))
      throw new BuildError(
        'invalid_input',
        `${path}: missing column "${need}"; a stations file has station_id, name, lat, lon and optionally elevation (m).`,
      );
  }
  const extra = cols.filter((c) => !['station_id', 'name', 'lat', 'lon', 'elevation'].includes(c));
  if (extra.length)
    throw new BuildError(
      'invalid_input',
      `${path}: unknown column(s) ${extra.join(', ')}; a stations file has station_id, name, lat, lon, elevation.`,
    );
  const elev = cols.includes('elevation') ? 'elevation' : 'NULL';
  await con.run(`CREATE TEMP TABLE raw_stations AS SELECT row_number() OVER () AS __row, CAST(station_id AS VARCHAR) AS station_id, CAST(name AS VARCHAR) AS name,
    CAST(lat AS VARCHAR) AS lat_t, CAST(lon AS VARCHAR) AS lon_t, CAST(${elev} AS VARCHAR) AS elev_t FROM ${reader(path)}`);
  const bad = await rows(
    con,
    `SELECT __row, station_id, lat_t, lon_t, elev_t,
      coalesce(TRY_CAST(lat_t AS DOUBLE) BETWEEN -90 AND 90, false) AS lat_ok, coalesce(TRY_CAST(lon_t AS DOUBLE) BETWEEN -180 AND 180, false) AS lon_ok
    FROM raw_stations
    WHERE station_id IS NULL OR trim(station_id) = '' OR TRY_CAST(lat_t AS DOUBLE) NOT BETWEEN -90 AND 90 OR TRY_CAST(lat_t AS DOUBLE) IS NULL
      OR TRY_CAST(lon_t AS DOUBLE) NOT BETWEEN -180 AND 180 OR TRY_CAST(lon_t AS DOUBLE) IS NULL
      OR (elev_t IS NOT NULL AND trim(elev_t) <> '' AND TRY_CAST(elev_t AS DOUBLE) IS NULL) ORDER BY __row LIMIT 1`,
  );
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
    throw new BuildError(
      'invalid_input',
      `${where}, ${what}. Fix the row, or remove the station if its position is not known.`,
    );
  }
  const dup = await rows(con, `SELECT station_id FROM raw_stations GROUP BY 1 HAVING count(*) > 1 LIMIT 1`);
  if (dup.length)
    throw new BuildError(
      'invalid_input',
      `${path}: station_id "${String(dup[0]!.station_id)}" appears more than once.`,
    );
  await con.run(`CREATE TEMP TABLE stations AS SELECT station_id, name, CAST(lat_t AS DOUBLE) AS lat, CAST(lon_t AS DOUBLE) AS lon,
    CAST(NULLIF(trim(elev_t), '') AS DOUBLE) AS elevation FROM raw_stations ORDER BY station_id`);
}

/** Column types that are numbers by construction (Parquet inputs); CSV columns are text and are checked cell by cell. */
const NUMERIC_TYPE =
  /^(DOUBLE|FLOAT|REAL|DECIMAL|INTEGER|BIGINT|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT)/;

/**
 * Rows per batch of stations for the statements whose memory DuckDB cannot
 * bound: holistic aggregates (median) keep every value of a group in memory,
 * and the duplicate check's hash table holds a row per (station, time).
 * Measured on 300 stations × 10 years hourly (21 M rows): the daily
 * derivation in one statement peaked at 3.0 GB RSS against a 1.5 GB
 * memory_limit.
 */
const BATCH_ROWS = 4_000_000;

/**
 * Rows per batch of stations sorted and written at once. Smaller than {@link BATCH_ROWS}: the sort
 * holds its batch beside the scale's whole table, and a 4 M-row batch took a network's import (600
 * stations × 10 years hourly, 52 M rows) to 2.26 GB RSS against a 1 GB memory limit.
 */
const WRITE_BATCH_ROWS = 1_000_000;

/** A batch of station ids: as a SQL IN list, and how many. */
interface StationBatch {
  in: string;
  size: number;
}

/** The table's station ids (those meeting `where`, a SQL condition) in batches of about {@link BATCH_ROWS} rows. */
async function stationBatches(
  con: DuckDBConnection,
  table: string,
  where = 'true',
  rowsPerBatch = BATCH_ROWS,
): Promise<StationBatch[]> {
  const counts = await rows(
    con,
    `SELECT station_id, count(*) AS n FROM ${table} WHERE ${where} GROUP BY station_id ORDER BY station_id`,
  );
  const batches: string[][] = [];
  let current: string[] = [];
  let n = 0;
  for (const r of counts) {
    if (current.length && n + Number(r.n) > rowsPerBatch) {
      batches.push(current);
      current = [];
      n = 0;
    }
    current.push(lit(String(r.station_id)));
    n += Number(r.n);
  }
  if (current.length) batches.push(current);
  return batches.map((b) => ({ in: `(${b.join(', ')})`, size: b.length }));
}

/** Creates the empty table of `scale`'s rows: the source file (its index in the inputs) and row, station, time, every type as DOUBLE. */
async function createScaleTable(con: DuckDBConnection, scale: StationTimeScale, withSource = true): Promise<void> {
  await con.run(
    `CREATE TEMP TABLE ${scale} (${withSource ? '__file INTEGER, __row BIGINT, ' : ''}station_id VARCHAR, time ${periodSql(scale).timeType}, ${STATION_TYPES[scale].map((t) => `${ident(t)} DOUBLE`).join(', ')})`,
  );
}

/** The station ids of a table. */
async function idsOf(con: DuckDBConnection, table: string): Promise<Set<string>> {
  return new Set((await rows(con, `SELECT DISTINCT station_id FROM ${table}`)).map((r) => String(r.station_id)));
}

/** Checks one observation file of `scale` and appends its rows to the scale's table, tagged with `fileIndex`. */
async function loadObservations(
  con: DuckDBConnection,
  scale: StationTimeScale,
  path: string,
  fileIndex: number,
  keepImplausible: boolean,
  zone: string,
): Promise<{ flagged: ScaleReport['flagged']; beyondPhysical: ScaleReport['beyondPhysical']; zoned: number }> {
  const described = await rows(con, `DESCRIBE SELECT * FROM ${reader(path)}`);
  const colType = new Map(described.map((r) => [String(r.column_name), String(r.column_type)]));
  const cols = [...colType.keys()];
  for (const need of ['station_id', 'time']) {
    if (!cols.includes(need))
      throw new BuildError(
        'invalid_input',
        `${path}: missing column "${need}"; an observation file has station_id, time and ${scale} data-type columns.`,
      );
  }
  const types = STATION_TYPES[scale];
  const unknown = cols.filter((c) => c !== 'station_id' && c !== 'time' && !types.includes(c));
  if (unknown.length) {
    throw new BuildError(
      'invalid_input',
      `${path}: column(s) ${unknown.map((u) => `"${u}"`).join(', ')} are not ${scale} data types. Valid: ${types.join(', ')}.`,
    );
  }
  const present = types.filter((t) => cols.includes(t));
  const raw = `raw_${scale}`;
  // Row numbers as the file has them (data rows from 1; a CSV's line is row + 1).
  await con.run(`CREATE TEMP TABLE ${raw} AS SELECT row_number() OVER () AS __row, * FROM ${reader(path)}`);
  const at = (r: Record<string, unknown>, column: string) =>
    `${path}: row ${String(r.__row)} (station "${String(r.station_id)}"), column "${column}"`;

  // Monthly times may be written yyyy-mm; daily and monthly are dates.
  const timeText = `trim(CAST(time AS VARCHAR))`;
  // A time with a zone ("…T10:00:00Z", "… 10:00+03:00", a Parquet TIMESTAMPTZ read as "…+00") names an
  // instant: an hourly one is moved into the dataset's zone; times without one are taken as in it.
  const ZONE = `\\s*([zZ]|[+-]\\d{2}(:?\\d{2})?)$`;
  const zonedRow = `regexp_matches(${timeText}, '\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?${ZONE}')`;
  const suffix = `replace(replace(regexp_extract(${timeText}, '([zZ]|[+-]\\d{2}(:?\\d{2})?)$', 1), ':', ''), 'z', 'Z')`;
  // Minutes east of UTC the row's zone states: Z is 0; "+hh" or "+hhmm" otherwise.
  const rowOffset = `CASE WHEN ${suffix} = 'Z' THEN 0 ELSE (CASE WHEN left(${suffix}, 1) = '-' THEN -1 ELSE 1 END)
    * (CAST(substr(${suffix}, 2, 2) AS INTEGER) * 60 + CASE WHEN length(${suffix}) = 5 THEN CAST(substr(${suffix}, 4, 2) AS INTEGER) ELSE 0 END) END`;
  const zoneMinutes = parseUtcOffset(zone)!;
  const hourlyExpr = `CASE WHEN ${zonedRow}
      THEN TRY_CAST(regexp_replace(${timeText}, '${ZONE}', '') AS TIMESTAMP) + to_minutes(CAST(${zoneMinutes} - (${rowOffset}) AS BIGINT))
      ELSE TRY_CAST(${timeText} AS TIMESTAMP) END`;
  const calendar = TIME_SCALES[scale].calendar;
  const timeExpr =
    calendar === 'month'
      ? `TRY_CAST(CASE WHEN length(${timeText}) = 7 THEN ${timeText} || '-01' ELSE ${timeText} END AS DATE)`
      : calendar === 'hour'
        ? hourlyExpr
        : `TRY_CAST(${timeText} AS ${periodSql(scale).timeType})`;
  const want = stationScaleSpec(scale).fileTime;
  const badTime = await rows(
    con,
    `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE time IS NULL OR ${timeExpr} IS NULL ORDER BY __row LIMIT 1`,
  );
  if (badTime.length)
    throw new BuildError(
      'invalid_input',
      `${at(badTime[0]!, 'time')}: "${String(badTime[0]!.t)}" is not a ${scale} time (${want}).`,
    );
  const zoned =
    calendar === 'hour' ? Number((await rows(con, `SELECT count(*) AS n FROM ${raw} WHERE ${zonedRow}`))[0]!.n) : 0;
  if (calendar !== 'hour') {
    // A day is a date of the dataset's local standard time; a zone on it has no one meaning.
    const withZone = await rows(
      con,
      `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE ${zonedRow} ORDER BY __row LIMIT 1`,
    );
    if (withZone.length) {
      throw new BuildError(
        'invalid_input',
        `${at(withZone[0]!, 'time')}: "${String(withZone[0]!.t)}" carries a time zone; ${scale} times are dates of the dataset's local standard time (${utcOffsetLabel(zone)}). Write the date alone.`,
      );
    }
  }
  if (calendar !== 'hour') {
    // One rule (docs/data.md): a day or month is its date; a time of day other than midnight is refused, never cut off.
    const withTime = await rows(
      con,
      `SELECT __row, station_id, ${timeText} AS t FROM ${raw}
      WHERE CAST(TRY_CAST(${timeText} AS TIMESTAMP) AS TIME) <> TIME '00:00:00' ORDER BY __row LIMIT 1`,
    );
    if (withTime.length) {
      throw new BuildError(
        'invalid_input',
        `${at(withTime[0]!, 'time')}: "${String(withTime[0]!.t)}" has a time of day; ${scale} times are dates (${want}), the day running from 00:00 to 24:00 local standard time. Aggregate sub-daily readings into an hourly file instead.`,
      );
    }
  }
  const outOfYears = await rows(
    con,
    `SELECT __row, station_id, ${timeText} AS t FROM ${raw} WHERE year(${timeExpr}) NOT BETWEEN ${STATION_YEARS.first} AND ${STATION_YEARS.last} ORDER BY __row LIMIT 1`,
  );
  if (outOfYears.length) {
    throw new BuildError(
      'invalid_input',
      `${at(outOfYears[0]!, 'time')}: "${String(outOfYears[0]!.t)}" is outside the years ${STATION_YEARS.first}–${STATION_YEARS.last} that queries accept.`,
    );
  }
  for (const t of present) {
    // Numeric Parquet columns are numbers by construction; text columns (CSV) are checked cell by cell.
    if (NUMERIC_TYPE.test(colType.get(t) ?? '')) continue;
    const nan = await rows(
      con,
      `SELECT __row, station_id, ${ident(t)} AS v FROM ${raw} WHERE ${ident(t)} IS NOT NULL AND trim(${ident(t)}) <> '' AND TRY_CAST(${ident(t)} AS DOUBLE) IS NULL ORDER BY __row LIMIT 1`,
    );
    if (nan.length)
      throw new BuildError(
        'invalid_input',
        `${at(nan[0]!, t)}: holds "${String(nan[0]!.v)}", which is not a number. Leave a cell empty for a missing value.`,
      );
  }
  // Numeric columns are cast directly (exact); only text columns go through trim and '' → null.
  const valueCols = types.map((t) =>
    !present.includes(t)
      ? `CAST(NULL AS DOUBLE) AS ${ident(t)}`
      : NUMERIC_TYPE.test(colType.get(t) ?? '')
        ? `CAST(${ident(t)} AS DOUBLE) AS ${ident(t)}`
        : `CAST(NULLIF(trim(CAST(${ident(t)} AS VARCHAR)), '') AS DOUBLE) AS ${ident(t)}`,
  );
  const { offGrid } = periodSql(scale);
  const off = await rows(
    con,
    `SELECT __row, station_id, CAST(time AS VARCHAR) AS t FROM (SELECT __row, station_id, ${timeExpr} AS time FROM ${raw}) WHERE ${offGrid} ORDER BY __row LIMIT 1`,
  );
  if (off.length) {
    // Real networks report at other minutes (NOAA ISD at hh:51); which hour such a reading belongs to is the data owner's call.
    const fix =
      calendar === 'hour'
        ? ' Make readings at other minutes hourly first (average them per hour, or keep the one nearest the hour): the build never moves a reading to another hour. docs/data.md shows one way with DuckDB.'
        : '';
    throw new BuildError(
      'invalid_input',
      `${at(off[0]!, 'time')}: "${String(off[0]!.t)}" is not on the ${scale} grid (hours on the hour; months on day 1).${fix}`,
    );
  }
  // Values no instrument can read (humidity 150 %, rain −5 mm): refused, or kept and counted when asked.
  const flagged: ScaleReport['flagged'] = [];
  let firstBad: { row: number; message: string } | null = null;
  for (const t of present) {
    const [lo, hi] = plausibleBounds(scale, t);
    const v = `TRY_CAST(${ident(t)} AS DOUBLE)`;
    const outside = [lo === null ? null : `${v} < ${lo}`, hi === null ? null : `${v} > ${hi}`]
      .filter(Boolean)
      .join(' OR ');
    if (!outside) continue;
    const bad = await rows(
      con,
      `SELECT __row, station_id, ${v} AS v, count(*) OVER () AS n FROM ${raw} WHERE ${outside} ORDER BY __row LIMIT 1`,
    );
    if (!bad.length) continue;
    const range = `${lo ?? '−∞'} to ${hi ?? '∞'}`;
    const first = `${at(bad[0]!, t)}: ${String(bad[0]!.v)} is outside ${range}`;
    if (!firstBad || Number(bad[0]!.__row) < firstBad.row)
      firstBad = { row: Number(bad[0]!.__row), message: `${first}, the bounds of what a ${t} instrument reads` };
    flagged.push({ column: t, values: Number(bad[0]!.n), first });
  }
  // Real readings past the physical range (humidity 100.07 % near saturation): kept as measured, counted.
  const beyondPhysical: ScaleReport['beyondPhysical'] = [];
  for (const t of present) {
    const phys = physicalBounds(scale, t);
    if (!phys) continue;
    const [lo, hi] = plausibleBounds(scale, t);
    const v = `TRY_CAST(${ident(t)} AS DOUBLE)`;
    const past = [
      phys[0] === null ? null : `(${v} < ${phys[0]}${lo === null ? '' : ` AND ${v} >= ${lo}`})`,
      phys[1] === null ? null : `(${v} > ${phys[1]}${hi === null ? '' : ` AND ${v} <= ${hi}`})`,
    ]
      .filter(Boolean)
      .join(' OR ');
    const found = await rows(
      con,
      `SELECT __row, station_id, ${v} AS v, count(*) OVER () AS n FROM ${raw} WHERE ${past} ORDER BY __row LIMIT 1`,
    );
    if (found.length) {
      beyondPhysical.push({
        column: t,
        values: Number(found[0]!.n),
        first: `${at(found[0]!, t)}: ${String(found[0]!.v)}, outside ${phys[0] ?? '−∞'} to ${phys[1] ?? '∞'}`,
      });
    }
  }
  // The first in file order, whichever column it is in.
  if (firstBad && !keepImplausible) {
    throw new BuildError(
      'invalid_input',
      `${firstBad.message} (docs/data.md, "Plausible values"). Correct or empty the cell; or pass --keep-implausible to keep such values and count them in the report.`,
    );
  }
  const orphan = await rows(
    con,
    `SELECT __row, station_id FROM ${raw} WHERE CAST(station_id AS VARCHAR) NOT IN (SELECT station_id FROM stations) OR station_id IS NULL ORDER BY __row LIMIT 1`,
  );
  if (orphan.length)
    throw new BuildError(
      'invalid_input',
      `${at(orphan[0]!, 'station_id')}: station_id "${String(orphan[0]!.station_id)}" is not in the stations file.`,
    );
  await con.run(
    `INSERT INTO ${scale} SELECT ${fileIndex}, __row, CAST(station_id AS VARCHAR) AS station_id, ${timeExpr} AS time, ${valueCols.join(', ')} FROM ${raw}`,
  );
  await con.run(`DROP TABLE ${raw}`);
  return { flagged, beyondPhysical, zoned };
}

/**
 * Refuses two rows for one (station, period), within a file or across the
 * scale's files, naming both rows' files and row numbers. Per batch of
 * stations (bounded memory); the first duplicate in input order is reported.
 */
async function checkDuplicates(
  con: DuckDBConnection,
  scale: StationTimeScale,
  files: readonly string[],
): Promise<void> {
  let dup: Record<string, unknown> | undefined;
  // One sortable key per row: file index, then row.
  const key = `(CAST(__file AS BIGINT) * 1000000000000 + __row)`;
  for (const batch of await stationBatches(con, scale)) {
    const d = await rows(
      con,
      `SELECT station_id, CAST(time AS VARCHAR) AS t, list(${key} ORDER BY ${key}) AS k FROM ${scale}
      WHERE station_id IN ${batch.in} GROUP BY station_id, time HAVING count(*) > 1 ORDER BY k[2] LIMIT 1`,
    );
    if (d.length && (!dup || Number((d[0]!.k as unknown[])[1]) < Number((dup.k as unknown[])[1]))) dup = d[0];
  }
  if (!dup) return;
  const [a, b] = (dup.k as unknown[]).map((k) => ({
    file: files[Math.floor(Number(k) / 1e12)]!,
    row: Number(k) % 1e12,
  }));
  const id = String(dup.station_id);
  if (a!.file === b!.file) {
    throw new BuildError(
      'invalid_input',
      `${b!.file}: row ${b!.row} (station "${id}"), column "time": station "${id}" has two rows for time ${String(dup.t)} (rows ${a!.row} and ${b!.row}). Keep one.`,
    );
  }
  throw new BuildError(
    'conflict',
    `${b!.file}: row ${b!.row} (station "${id}"), column "time": station "${id}" has two rows for time ${String(dup.t)}, one in ${a!.file} (row ${a!.row}) and one in ${b!.file} (row ${b!.row}). ` +
      `The ${scale} files overlap: give each (station, ${TIME_SCALES[scale].period}) in one file only.`,
  );
}

function aggExpr(rule: DeriveRule, to: StationTimeScale, minCount: string, fullCount: string): string {
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
  // Written one decimal finer than a reading (contract/station-type-info.ts): 5.4, not 5.3999999999999995.
  return `CASE WHEN count(${x}) >= ${rule.complete ? fullCount : minCount} THEN ${roundValueSql(scaled, derivedDecimals(to, rule.out))} END AS ${ident(rule.out)}`;
}

function deriveSql(rules: DeriveRule[], from: StationTimeScale, to: StationTimeScale, stations: string): string {
  // The period and its full count are the calendar's (contract/calendars.ts); a usable period may miss the scale's maxMissing.
  const derived = periodSql(to).derive;
  if (!derived)
    throw new BuildError(
      'internal',
      `Station scale ${to}: the build cannot derive periods of calendar "${TIME_SCALES[to].calendar}".`,
    );
  const { period, full } = derived;
  const min = `(${full}) - ${stationScaleSpec(to).maxMissing}`;
  const circ = [...new Set(rules.filter((r) => r.agg === 'circmedian').map((r) => r.src))];
  const cm = circ.map(
    (c) =>
      `(degrees(atan2(avg(sin(radians(${ident(c)}))), avg(cos(radians(${ident(c)}))))) + 360) % 360 AS ${ident(`cm__${c}`)}`,
  );
  const present = new Set(rules.map((r) => r.out));
  const missing = STATION_TYPES[to].filter((t) => !present.has(t) && !isComputedType(to, t));
  return `WITH src AS (SELECT *, ${period} AS p FROM ${from} WHERE station_id IN ${stations}),
    cm AS (SELECT station_id, p${cm.length ? ', ' : ''}${cm.join(', ')} FROM src GROUP BY station_id, p),
    j AS (SELECT src.*${circ.map((c) => `, cm.${ident(`cm__${c}`)}`).join('')} FROM src JOIN cm USING (station_id, p))
    SELECT station_id, p AS time, ${rules.map((r) => aggExpr(r, to, min, full)).join(',\n')}
    ${missing.map((m) => `, CAST(NULL AS DOUBLE) AS ${ident(m)}`).join('')}
    FROM j GROUP BY station_id, p`;
}

/**
 * Creates `table` from `from` by `rules` for the stations meeting `where`, one batch of stations at a
 * time (bounded memory, see {@link BATCH_ROWS}); empty when no station does.
 */
async function derive(
  con: DuckDBConnection,
  table: string,
  rules: DeriveRule[],
  from: StationTimeScale,
  to: StationTimeScale,
  where: string,
): Promise<void> {
  const batches = await stationBatches(con, from, where);
  await con.run(`CREATE TEMP TABLE ${table} AS ${deriveSql(rules, from, to, batches[0]?.in ?? '(NULL)')}`);
  for (const batch of batches.slice(1)) await con.run(`INSERT INTO ${table} ${deriveSql(rules, from, to, batch.in)}`);
}

/**
 * FAO-56 Penman–Monteith reference evapotranspiration (mm/day), eqs. 6–50
 * of Allen et al. (1998), from daily Tmax/Tmin (°C), RHmax/RHmin (%), mean
 * wind at 2 m (m/s), solar radiation (MJ/m²), station elevation (m) and
 * latitude, over the derived daily values in `table`. Null when any input is missing.
 */
const et0Sql = (table: string): string => `
WITH i AS (
  SELECT d.station_id, d.time, d.temperature_max AS tx, d.temperature_min AS tn, d.humidity_max AS rhx, d.humidity_min AS rhn,
    d.wind_speed_mean AS u2, d.solar_radiation_sum AS rs, s.elevation AS z, radians(s.lat) AS phi, dayofyear(d.time) AS j
  FROM ${table} d JOIN stations s USING (station_id)
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
       ELSE ${roundValueSql('(0.408 * delta * rn + gamma * 900 / (t + 273) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2))', derivedDecimals('daily', 'et0'))} END AS et0
FROM d`;

/**
 * Reads the station archive already in `outDir` (its index, written by every build and by
 * `climate-query index`) with DuckDB: adds its stations that this build's stations file does not
 * list to the `stations` table, and returns where each of its series is and whether it was given
 * or derived (the file's {@link SOURCE_KEY} metadata). Fills temp table `old_given` with the
 * given ones, which a derivation never replaces.
 */
async function readExisting(
  con: DuckDBConnection,
  outDir: string,
  folder: string | null,
  replace: boolean,
): Promise<ExistingSeries[]> {
  await con.run(`CREATE TEMP TABLE old_given (scale VARCHAR, station_id VARCHAR)`);
  if (folder === null) return [];
  const dir = join(outDir, folder);
  const index = join(dir, 'index.parquet');
  const has = (p: string) =>
    stat(p).then(
      () => true,
      () => false,
    );
  if (replace || !(await has(dir))) return [];
  if (!(await has(index))) {
    if (!(await readdir(dir)).some((f) => !f.startsWith('.'))) return [];
    throw new BuildError(
      'invalid_input',
      `${dir} holds a station archive without index.parquet, so this build cannot tell what to keep. Index it first (climate-query index ${outDir}), or pass --replace to drop it.`,
    );
  }
  await con.run(`CREATE TEMP TABLE old_index AS SELECT * FROM read_parquet(${lit(index)}, hive_partitioning = false)`);
  await con.run(`INSERT INTO stations SELECT CAST(station_id AS VARCHAR), CAST(name AS VARCHAR), CAST(lat AS DOUBLE), CAST(lon AS DOUBLE), CAST(elevation AS DOUBLE)
    FROM old_index WHERE station_id NOT IN (SELECT station_id FROM stations)`);
  const listed = await rows(
    con,
    STATION_TIME_SCALES.map(
      (sc) => `SELECT '${sc}' AS scale, station_id, ${sc}_path AS path FROM old_index WHERE ${sc}_path IS NOT NULL`,
    ).join(' UNION ALL '),
  );
  const out: ExistingSeries[] = listed.map((r) => ({
    scale: r.scale as StationTimeScale,
    id: String(r.station_id),
    file: join(outDir, ...String(r.path).split('/')),
    source: 'given',
  }));
  if (out.length) {
    const derived = new Set(
      (
        await rows(
          con,
          `SELECT file_name FROM parquet_kv_metadata([${out.map((e) => lit(e.file)).join(', ')}]) WHERE decode(key) = ${lit(SOURCE_KEY)} AND decode(value) = 'derived'`,
        )
      ).map((r) => String(r.file_name)),
    );
    for (const e of out) if (derived.has(e.file)) e.source = 'derived';
    const given = out.filter((e) => e.source === 'given');
    if (given.length) {
      const app = await con.createAppender('old_given');
      for (const e of given) {
        app.appendVarchar(e.scale);
        app.appendVarchar(e.id);
        app.endRow();
      }
      app.flushSync();
      app.closeSync();
    }
  }
  return out;
}

/**
 * Writes the archive into `dir`: stations.parquet, one file per station and scale of this build's
 * tables (marked given or derived), and a copy of each `kept` file of the dataset's archive.
 */
async function writeArchive(
  con: DuckDBConnection,
  dir: string,
  have: ReadonlySet<StationTimeScale>,
  derived: Record<StationTimeScale, Set<string>>,
  kept: ExistingSeries[],
  progress: BuildProgress,
): Promise<void> {
  await con.run(
    `COPY (SELECT station_id, name, lat, lon, elevation FROM stations ORDER BY station_id) TO ${lit(join(dir, 'stations.parquet'))} (FORMAT parquet, COMPRESSION zstd)`,
  );
  const buildId = newBuildId();
  for (const scale of STATION_TIME_SCALES) {
    if (!have.has(scale)) continue;
    const cols = STATION_TYPES[scale].map(ident).join(', ');
    const types = STATION_TYPES[scale];
    const batches = await stationBatches(con, scale, 'true', WRITE_BATCH_ROWS);
    const stationCount = batches.reduce((n, b) => n + b.size, 0);
    let written = 0;
    // A batch of stations at a time (WRITE_BATCH_ROWS): sorted, so each station's COPY below reads
    // only its own row groups (zone maps), without one sort of the whole archive.
    for (const batch of batches) {
      progress(`sorting the ${scale} rows`, `stations ${written + 1}–${written + batch.size} of ${stationCount}`);
      await con.run(
        `CREATE TEMP TABLE sorted_${scale} AS SELECT station_id, time, ${cols} FROM ${scale} WHERE station_id IN ${batch.in} ORDER BY station_id, time`,
      );
      // One COPY per station rather than PARTITION_BY: exactly one sorted file per station whatever
      // the number of stations (a partitioned write may split a partition when it has too many open),
      // and as fast on the demo (125 s either way on this loaded machine; most of a build is indexing).
      // A station's file holds only the types it has a value of: a column of nulls costs nothing to
      // decode but a column-chunk entry per row group in the footer, which every cold read downloads
      // (daily files have 42 type columns; measured on the 2,000-station network archive, 25 years:
      // 10 KB footers with every column, the data of a year being 15 KB).
      const counts = await rows(
        con,
        `SELECT station_id, ${types.map((t, i) => `count(${ident(t)}) AS c${i}`).join(', ')} FROM sorted_${scale} GROUP BY station_id ORDER BY station_id`,
      );
      for (const c of counts) {
        progress(`writing ${scale} station files`, `${++written} of ${stationCount}`);
        const id = String(c.station_id);
        const cols = types.filter((_, i) => Number(c[`c${i}`]) > 0).map(ident);
        const folder = join(dir, scale, fileSegment(id));
        await mkdir(folder, { recursive: true });
        const source = derived[scale].has(id) ? 'derived' : 'given';
        await con.run(`COPY (SELECT station_id, time${cols.map((k) => `, ${k}`).join('')} FROM sorted_${scale} WHERE station_id = ${lit(id)} ORDER BY time)
          TO ${lit(join(folder, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE ${ROW_GROUP_SIZE[scale]}, KV_METADATA {${SOURCE_KEY}: '${source}', ${BUILD_ID_KEY}: '${buildId}'})`);
      }
      await con.run(`DROP TABLE sorted_${scale}`);
    }
    await con.run(`DROP TABLE ${scale}`);
  }
  // The dataset's series this build does not replace, byte for byte (the indexer checks them again).
  for (const e of kept) {
    const folder = join(dir, e.scale, fileSegment(e.id));
    await mkdir(folder, { recursive: true });
    await copyFile(e.file, join(folder, 'data_0.parquet'));
  }
}

/**
 * Builds the station part of the dataset in `outDir` from `inputs` and
 * records it in catalog.json. Additive unless `options.replace`: the
 * (station, scale) series this build gives or derives are added or replace
 * the dataset's, every other station and series is kept (docs/data.md,
 * section 1b). Throws {@link BuildError} on bad input; the dataset's
 * previous station archive, if any, is then left as it was.
 */
export async function buildStations(
  inputs: StationInputs,
  outDir: string,
  name = 'dataset',
  options: StationBuildOptions = {},
): Promise<StationsSection> {
  return (await buildStationsWithReport(inputs, outDir, name, options)).section;
}

/** {@link buildStations}, returning the build report too. */
export async function buildStationsWithReport(
  inputs: StationInputs,
  outDir: string,
  name = 'dataset',
  options: StationBuildOptions = {},
): Promise<{ section: StationsSection; report: StationBuildReport }> {
  return withDatasetLock(outDir, 'build --stations', () => buildLocked(inputs, outDir, name, options));
}

/** {@link buildStationsWithReport}, holding the dataset's lock. */
async function buildLocked(
  inputs: StationInputs,
  outDir: string,
  name: string,
  options: StationBuildOptions,
): Promise<{ section: StationsSection; report: StationBuildReport }> {
  const t0 = Date.now();
  const progress = options.progress ?? quiet;
  // Refusals that need no file read come first (a file given twice, a zone the dataset does not keep).
  const before = await readCatalogOrEmpty(outDir, name);
  const plan = planStationBuild(inputs, options, before);
  // The archive the catalog names now (or, before any catalog lists one, a `stations` folder to index
  // or replace), and the new one's folder: `stations` when it is free, else one named by this build,
  // so the catalog switches from one whole archive to the other in one rename (docs/reliability.md).
  const previous = before.stations
    ? stationArchiveFolder(before.stations)
    : existsSync(join(outDir, 'stations'))
      ? 'stations'
      : null;
  const folder = newArchiveFolder(outDir);
  const temp = await workFolder('build');
  const duck = await openBuildDuckDB(temp);
  const { con } = duck;
  await mkdir(outDir, { recursive: true });
  const staging = archiveStaging(outDir);
  try {
    await loadStations(con, inputs.stations);
    const inStationsFile = Number((await rows(con, `SELECT count(*) AS n FROM stations`))[0]!.n);
    const { zone } = plan;
    const existing = await readExisting(con, outDir, previous, plan.replace);
    const fileRows: Partial<Record<StationTimeScale, ScaleReport['files']>> = {};
    const flaggedBy: Partial<Record<StationTimeScale, ScaleReport['flagged']>> = {};
    const beyondBy: Partial<Record<StationTimeScale, ScaleReport['beyondPhysical']>> = {};
    const have = new Set<StationTimeScale>();
    for (const { scale, files } of plan.loads) {
      await createScaleTable(con, scale);
      const flagged: ScaleReport['flagged'] = [];
      const beyond: ScaleReport['beyondPhysical'] = [];
      const zoned: number[] = [];
      for (const [i, path] of files.entries()) {
        progress(`checking the ${scale} files`, `${i + 1} of ${files.length}`);
        const loaded = await loadObservations(con, scale, path, i, options.keepImplausible ?? false, zone);
        flagged.push(...loaded.flagged);
        beyond.push(...loaded.beyondPhysical);
        zoned.push(loaded.zoned);
      }
      flaggedBy[scale] = flagged;
      beyondBy[scale] = beyond;
      progress(`looking for repeated ${scale} times`);
      await checkDuplicates(con, scale, files);
      const perFile = new Map(
        (await rows(con, `SELECT __file, count(*) AS n FROM ${scale} GROUP BY 1`)).map((r) => [
          Number(r.__file),
          Number(r.n),
        ]),
      );
      fileRows[scale] = files.map((path, i) => ({ path, rows: perFile.get(i) ?? 0, zoned: zoned[i] ?? 0 }));
      await con.run(`ALTER TABLE ${scale} DROP COLUMN __file`);
      await con.run(`ALTER TABLE ${scale} DROP COLUMN __row`);
      have.add(scale);
    }
    const given = Object.fromEntries(
      await Promise.all(
        STATION_TIME_SCALES.map(async (sc) => [sc, have.has(sc) ? await idsOf(con, sc) : new Set<string>()]),
      ),
    ) as Record<StationTimeScale, Set<string>>;
    const notDerivedBy: Partial<Record<StationTimeScale, Array<{ type: string; from: string }>>> = {};
    // Daily from hourly for every station with hourly rows, monthly from daily for every station with
    // daily rows (given or derived), except where the station's own series of that scale is given:
    // the given rows win for that station (docs/data.md, "Given and derived"), and so does a given
    // series already in the dataset.
    // Finest first, as planned, so a scale derived from a derived one sees its rows.
    for (const { to, from } of plan.derives) {
      // Types of a quantity the source holds that still cannot be derived: their own source column is
      // empty (hourly humidity alone gives a daily humidity_mean, not humidity_min/_max). Named in the report.
      const rules = deriveRulesInto(to);
      const held = new Set<string>();
      for (const r of rules)
        if (Number((await rows(con, `SELECT count(${ident(r.src)}) AS n FROM ${from}`))[0]!.n) > 0) held.add(r.out);
      const stem = (t: string) => t.replace(/_(mean|min|max|median|sum)$/, '');
      const heldStems = new Set([...held].map(stem));
      const missing = rules.filter((r) => !held.has(r.out) && heldStems.has(stem(r.out)));
      if (missing.length > 0) notDerivedBy[to] = missing.map((r) => ({ type: r.out, from: r.src }));
      if (!have.has(to)) await createScaleTable(con, to, false);
      progress(`deriving ${to} from ${from}`);
      await derive(
        con,
        `${to}_derived`,
        deriveRulesInto(to),
        from,
        to,
        `station_id NOT IN (SELECT DISTINCT station_id FROM ${to}) AND station_id NOT IN (SELECT station_id FROM old_given WHERE scale = '${to}')`,
      );
      if (STATION_TYPES[to].some((t) => isComputedType(to, t))) {
        // et0, the one computed type (FAO-56 over the derived daily values): its own SQL.
        const order = STATION_TYPES[to].map((t) => (t === 'et0' ? 'e.et0' : `d.${ident(t)}`));
        await con.run(`INSERT INTO ${to} SELECT d.station_id, d.time, ${order.join(', ')}
        FROM ${to}_derived d JOIN (${et0Sql(`${to}_derived`)}) e USING (station_id, time)`);
      } else {
        await con.run(`INSERT INTO ${to} BY NAME SELECT * FROM ${to}_derived`);
      }
      await con.run(`DROP TABLE ${to}_derived`);
      have.add(to);
    }
    const built = Object.fromEntries(
      await Promise.all(
        STATION_TIME_SCALES.map(async (sc) => [sc, have.has(sc) ? await idsOf(con, sc) : new Set<string>()]),
      ),
    ) as Record<StationTimeScale, Set<string>>;
    const derived = Object.fromEntries(
      STATION_TIME_SCALES.map((sc) => [sc, new Set([...built[sc]].filter((id) => !given[sc].has(id)))]),
    ) as Record<StationTimeScale, Set<string>>;
    // Additive: every series of the dataset this build does not replace stays.
    const kept = existing.filter((e) => !built[e.scale].has(e.id));
    const scales: StationBuildReport['scales'] = {};
    const oldGiven = await rows(con, `SELECT scale, station_id FROM old_given`);
    for (const sc of STATION_TIME_SCALES) {
      const keptHere = kept.filter((e) => e.scale === sc).length;
      if (!have.has(sc) && !keptHere) continue;
      const span = have.has(sc)
        ? (
            await rows(
              con,
              `SELECT count(*) AS n, strftime(min(time), '${periodSql(sc).keyFormat}') AS first, strftime(max(time), '${periodSql(sc).keyFormat}') AS last FROM ${sc}`,
            )
          )[0]!
        : { n: 0, first: null, last: null };
      // Stations this build had the finer series of, whose own series of this scale (given) was used instead.
      const finer = stationScaleSpec(sc).derivedFrom as StationTimeScale | null;
      const couldDerive = finer && have.has(finer) ? await idsOf(con, finer) : new Set<string>();
      const givenHere = new Set([
        ...given[sc],
        ...oldGiven.filter((r) => r.scale === sc).map((r) => String(r.station_id)),
      ]);
      const files = fileRows[sc] ?? [];
      scales[sc] = {
        stations: built[sc].size + keptHere,
        given: given[sc].size,
        derived: derived[sc].size,
        kept: keptHere,
        givenOverDerived: [...couldDerive].filter((id) => givenHere.has(id)).sort(),
        files,
        rowsRead: files.reduce((a, f) => a + f.rows, 0),
        rowsRefused: 0,
        refused: [],
        flagged: flaggedBy[sc] ?? [],
        beyondPhysical: beyondBy[sc] ?? [],
        ...(notDerivedBy[sc] ? { notDerived: notDerivedBy[sc] } : {}),
        rowsWritten: Number(span.n),
        first: span.first === null ? null : String(span.first),
        last: span.last === null ? null : String(span.last),
      };
    }
    const total = Number((await rows(con, `SELECT count(*) AS n FROM stations`))[0]!.n);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await writeArchive(con, staging, have, derived, kept, progress);
    duck.close();
    const section = { ...(await indexStationArchive(staging, folder, { progress })), utcOffset: zone };
    // Publish: the new archive under its own name, the catalog switched to it by one rename, and only
    // then the old archive removed. Killed anywhere, the catalog names one whole archive.
    await rename(staging, join(outDir, folder));
    await updateCatalog(outDir, name, (c) => {
      c.stations = section;
      if (options.attribution && !c.attribution.includes(options.attribution)) c.attribution.push(options.attribution);
    });
    if (previous !== null && previous !== folder) await rm(join(outDir, previous), { recursive: true, force: true });
    const report: StationBuildReport = {
      ok: true,
      out: outDir,
      replace: options.replace ?? false,
      stations: { total, inStationsFile, keptFromDataset: total - inStationsFile },
      timeZone: zone,
      scales,
      seconds: (Date.now() - t0) / 1000,
    };
    return { section, report };
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

/**
 * The report of a build that stopped on `error`: nothing was written. A bad row stops the build at
 * the first one found, so `refused` names that row (file, row, column, why).
 */
export function failedReport(outDir: string, replace: boolean, error: unknown, seconds: number): StationBuildReport {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    error: message,
    ...(/: row \d+/.test(message) ? { refused: [message] } : {}),
    out: outDir,
    replace,
    stations: { total: 0, inStationsFile: 0, keptFromDataset: 0 },
    scales: {},
    seconds,
  };
}

/** The report as text, as the CLI prints it. */
export function reportText(r: StationBuildReport): string {
  const lines = [
    `${countOf(r.stations.total, 'station')} in ${r.out} (${r.stations.inStationsFile} in the stations file, ${r.stations.keptFromDataset} kept from the dataset)${r.replace ? '; --replace: the previous station archive was dropped' : ''}.`,
  ];
  if (r.timeZone) lines.push(`Times are local standard time ${utcOffsetLabel(r.timeZone)}.`);
  for (const sc of STATION_TIME_SCALES) {
    const s = r.scales[sc];
    if (!s) continue;
    lines.push(
      `${sc}: ${countOf(s.stations, 'station')} (${s.given} given, ${s.derived} derived, ${s.kept} kept as they were); ${s.rowsRead} rows read from ${s.files.length} file(s), ${s.rowsRefused} refused; ${s.rowsWritten} rows written${s.first ? `, ${s.first} to ${s.last}` : ''}.`,
    );
    for (const f of s.files)
      lines.push(
        `  ${f.path}: ${f.rows} rows${f.zoned ? `, ${f.zoned} with a zone converted to ${utcOffsetLabel(r.timeZone ?? '+02:00')}` : ''}`,
      );
    if (s.givenOverDerived.length)
      lines.push(`  given series used, not derived ones, for: ${s.givenOverDerived.join(', ')}`);
    const finer = stationScaleSpec(sc).derivedFrom;
    if (s.notDerived?.length)
      lines.push(
        `  not derived, their ${finer} source holding no values: ${s.notDerived.map((n) => `${n.type} (from ${finer} ${n.from})`).join(', ')}`,
      );
    for (const f of s.flagged)
      lines.push(`  kept ${f.values} implausible value(s) of ${f.column} (--keep-implausible); first: ${f.first}`);
    for (const f of s.beyondPhysical ?? [])
      lines.push(
        `  kept ${f.values} value(s) of ${f.column} past its physical range, as sensors read them; first: ${f.first}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
