/**
 * `climate-query index`: checks a station archive written by any Parquet
 * writer (docs/data.md, "Station archive") and derives what the engine
 * reads before any data: the station index (`stations/index.parquet`) and
 * the per-station coverage detail (`stations/coverage.jsonl`). Runs on
 * native DuckDB with a memory limit and a temp directory, so the archive's
 * size does not bound it; only per-file and per-station summaries pass
 * through JavaScript, one station at a time.
 */
import { type CalendarSql, calendarSql } from '../contract/calendars.ts';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { once } from 'node:events';
import type { DuckDBConnection } from '@duckdb/node-api';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import {
  FOOTER_HASH_DIGITS,
  STATION_LAYOUT,
  type StationFileChunks,
  type StationsSection,
} from '../dataset/catalog.ts';
import { parquetMetadata, type FileMetaData } from 'hyparquet';
import { ordinalOfTime } from '../stations/time-keys.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset/dataset-writer.ts';
import { stationArchiveFolder } from '../dataset/catalog-owners.ts';
import { withDatasetLock } from './dataset/dataset-lock.ts';
import { BuildError } from './build-error.ts';
import { coverageGroups } from './coverage-lines.ts';
import { ident, lit, openBuildDuckDB, rows } from './build-duckdb.ts';
import { DEFAULT_UTC_OFFSET } from '../contract/utc-offset.ts';
import { workFolder } from './work-folder.ts';
import { type BuildProgress, quiet } from './build-progress.ts';

/** The years station data may hold: the years a query may ask for (docs/contract.md, docs/data.md). */
export const STATION_YEARS = { first: 1800, last: 2200 } as const;

/** The build's SQL for the periods of a station scale: its calendar's (contract/calendars.ts). */
export type PeriodSql = CalendarSql;

/** The SQL for `scale`'s periods. */
export function periodSql(scale: StationTimeScale): PeriodSql {
  return calendarSql(TIME_SCALES[scale].calendar);
}

/** "hourly/, daily/ or monthly/": the station scales' folders. */
function orFolders(): string {
  const f = STATION_TIME_SCALES.map((s) => `${s}/`);
  return f.length > 1 ? `${f.slice(0, -1).join(', ')} or ${f.at(-1)}` : f.join('');
}

async function parquetFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.parquet'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * The length of a Parquet file's footer, from its last 8 bytes ("<length>PAR1"), and its hash
 * (FOOTER_HASH_DIGITS of the SHA-256 of the footer with those 8 bytes): the bytes a reader fetches first, so checking them costs
 * nothing, and files this build writes carry the build's id in their footer, so a file rewritten
 * at the same size has another hash (docs/reliability.md).
 */
async function footerOf(
  path: string,
  bytes: number,
  scale: StationTimeScale,
): Promise<{ footer: number; hash: string; chunks?: StationFileChunks }> {
  const fh = await open(path, 'r');
  try {
    const end = Buffer.alloc(8);
    await fh.read(end, 0, 8, bytes - 8);
    if (end.toString('latin1', 4) !== 'PAR1')
      throw new BuildError('invalid_input', `${path}: not a Parquet file (no PAR1 at the end).`);
    const footer = end.readUInt32LE(0);
    if (footer + 12 > bytes)
      throw new BuildError(
        'invalid_input',
        `${path}: its footer length (${footer}) does not fit in the file (${bytes} bytes); the file is damaged.`,
      );
    const tail = Buffer.alloc(footer + 8);
    await fh.read(tail, 0, tail.length, bytes - tail.length);
    const hash = createHash('sha256').update(tail).digest('hex').slice(0, FOOTER_HASH_DIGITS);
    const chunks = chunkMapOf(tail, scale);
    return { footer, hash, ...(chunks ? { chunks } : {}) };
  } finally {
    await fh.close();
  }
}

/**
 * Where the file's column chunks lie by row group, with each group's time span (its `time`
 * statistics): what a reader needs to plan its reads before the footer. Left out (the reader
 * then plans from the footer) when the footer does not parse here, a group lacks time
 * statistics, or its chunks are not one contiguous run in the same column order.
 */
function chunkMapOf(tail: Buffer, scale: StationTimeScale): StationFileChunks | undefined {
  let md: FileMetaData;
  try {
    md = parquetMetadata(tail.buffer.slice(tail.byteOffset, tail.byteOffset + tail.length) as ArrayBuffer);
  } catch {
    return undefined;
  }
  const columns = md.row_groups[0]?.columns.map((c) => c.meta_data?.path_in_schema[0] ?? '') ?? [];
  const timeAt = columns.indexOf('time');
  if (timeAt < 0) return undefined;
  const groups: number[][] = [];
  for (const rg of md.row_groups) {
    const metas = rg.columns.map((c) => c.meta_data);
    if (metas.length !== columns.length) return undefined;
    const row: number[] = [];
    const stats = metas[timeAt]?.statistics;
    const first = ordinalOfTime(scale, stats?.min_value);
    const last = ordinalOfTime(scale, stats?.max_value);
    if (first === null || last === null) return undefined;
    row.push(first, last);
    let end = -1;
    for (const [i, m] of metas.entries()) {
      if (!m || m.path_in_schema[0] !== columns[i]) return undefined;
      const start = Number(m.dictionary_page_offset || m.data_page_offset);
      if (end >= 0 && start !== end) return undefined;
      row.push(start);
      end = start + Number(m.total_compressed_size);
    }
    row.push(end);
    groups.push(row);
  }
  return { columns, groups };
}

/**
 * Coverage lines are ordered by cells of this many per degree (0.5°, about 55 km): the stations
 * a nearest-station or poly-aggregate query considers lie in a few neighbouring cells, so their
 * lines come in a few Range requests (ordered by id, a polygon's 62 stations among 2,000 were
 * scattered over the file).
 */
const CELLS_PER_DEGREE = 2;

/** Coverage runs DuckDB sorts at once before Node joins them into lines (see the coverage step of {@link indexStationArchive}). */
const RUNS_PER_BATCH = 2_000_000;

const NUMERIC = /^(DOUBLE|FLOAT|REAL|DECIMAL.*|INTEGER|BIGINT|SMALLINT|TINYINT)$/;

async function checkStationsFile(con: DuckDBConnection, path: string): Promise<void> {
  const cols = new Map(
    (await rows(con, `DESCRIBE SELECT * FROM read_parquet(${lit(path)}, hive_partitioning = false)`)).map((r) => [
      String(r.column_name),
      String(r.column_type),
    ]),
  );
  for (const need of ['station_id', 'name', 'lat', 'lon', 'elevation']) {
    if (!cols.has(need))
      throw new BuildError(
        'invalid_input',
        `${path}: missing column "${need}"; stations.parquet has station_id, name, lat, lon, elevation (docs/data.md).`,
      );
  }
  await con.run(`CREATE OR REPLACE TEMP TABLE idx_stations AS SELECT CAST(station_id AS VARCHAR) AS station_id, CAST(name AS VARCHAR) AS name,
    CAST(lat AS DOUBLE) AS lat, CAST(lon AS DOUBLE) AS lon, CAST(elevation AS DOUBLE) AS elevation, file_row_number + 1 AS row FROM read_parquet(${lit(path)}, file_row_number = true, hive_partitioning = false)`);
  const bad = await rows(
    con,
    `SELECT row, station_id FROM idx_stations WHERE station_id IS NULL OR station_id = '' OR lat IS NULL OR lon IS NULL
    OR lat NOT BETWEEN -90 AND 90 OR lon NOT BETWEEN -180 AND 180 ORDER BY row LIMIT 1`,
  );
  if (bad.length)
    throw new BuildError(
      'invalid_input',
      `${path}: row ${String(bad[0]!.row)} (station "${String(bad[0]!.station_id)}") has an empty station_id or lat/lon missing or out of range.`,
    );
  const dup = await rows(
    con,
    `SELECT station_id, min(row) AS row FROM idx_stations GROUP BY 1 HAVING count(*) > 1 ORDER BY 2 LIMIT 1`,
  );
  if (dup.length)
    throw new BuildError(
      'invalid_input',
      `${path}: station_id "${String(dup[0]!.station_id)}" appears more than once.`,
    );
}

interface FileRow {
  station_id: string;
  path: string;
  bytes: number;
  footer: number;
  footerHash: string;
  /** Where its column chunks lie (kept in its coverage line). */
  chunks?: StationFileChunks;
  first: string;
  last: string;
}

/**
 * Rows per batch of files: every check below is per file or per station, and a window over a
 * whole network's archive (52 M hourly rows) is more than DuckDB keeps within its memory limit.
 */
const INDEX_BATCH_ROWS = 4_000_000;

/**
 * The files in batches of about {@link INDEX_BATCH_ROWS} rows, by the row counts their footers
 * state. Only the batching trusts them; a footer that lies makes a batch larger or smaller, and
 * every check still reads the rows themselves.
 */
async function fileBatches(con: DuckDBConnection, files: string[], batchRows: number): Promise<string[][]> {
  const counts = new Map(
    (await rows(con, `SELECT file_name, num_rows FROM parquet_file_metadata([${files.map(lit).join(', ')}])`)).map(
      (r) => [String(r.file_name), Number(r.num_rows)],
    ),
  );
  const batches: string[][] = [];
  let current: string[] = [];
  let n = 0;
  for (const f of files) {
    const k = Math.max(0, counts.get(f) ?? 0);
    if (current.length && n + k > batchRows) {
      batches.push(current);
      current = [];
      n = 0;
    }
    current.push(f);
    n += k;
  }
  if (current.length) batches.push(current);
  return batches;
}

/** How {@link indexStationArchive} reports and batches its work. */
export interface IndexOptions {
  progress?: BuildProgress;
  /** Rows per batch of files (default {@link INDEX_BATCH_ROWS}); the index is the same whatever it is. */
  batchRows?: number;
  /** Coverage runs sorted at once (default {@link RUNS_PER_BATCH}); the coverage file is the same whatever it is. */
  runsPerBatch?: number;
}

/** The SQL that reads `files` with the file name and row number of each row. */
const filesSql = (files: string[]): string =>
  `read_parquet([${files.map(lit).join(', ')}], filename = true, file_row_number = true, union_by_name = true, hive_partitioning = false)`;

/** Checks one scale's files; returns the data types that hold values and fills temp table `idx_runs`. */
async function checkScale(
  con: DuckDBConnection,
  stationsDir: string,
  prefix: string,
  scale: StationTimeScale,
  files: string[],
  progress: BuildProgress,
  batchRows = INDEX_BATCH_ROWS,
): Promise<{ types: string[]; files: FileRow[] }> {
  const list = `[${files.map(lit).join(', ')}]`;
  const described = await rows(
    con,
    `DESCRIBE SELECT * FROM read_parquet(${list}, union_by_name = true, hive_partitioning = false)`,
  );
  const colType = new Map(described.map((r) => [String(r.column_name), String(r.column_type)]));
  const where = `${join(stationsDir, scale)}${sep}`;
  if (colType.get('station_id') !== 'VARCHAR')
    throw new BuildError(
      'invalid_input',
      colType.has('station_id')
        ? `${where}: column "station_id" must be text (VARCHAR); got ${colType.get('station_id')}.`
        : // A folder name station_id=<id> is not read as a column: a digits-only id would become a number.
          `${where}: the station files have no "station_id" column; write it into each file (DuckDB: PARTITION_BY (station_id), WRITE_PARTITION_COLUMNS true).`,
    );
  if (!periodSql(scale).archiveTime.test(colType.get('time') ?? '')) {
    throw new BuildError(
      'invalid_input',
      `${where}: column "time" must be ${periodSql(scale).archiveTimeWords} in ${scale} files; got ${colType.get('time') ?? 'none'}.`,
    );
  }
  const valueCols = [...colType.keys()].filter((c) => c !== 'station_id' && c !== 'time');
  for (const c of valueCols) {
    if (!STATION_TYPES[scale].includes(c))
      throw new BuildError(
        'invalid_input',
        `${where}: column "${c}" is not a ${scale} data type. Valid: ${STATION_TYPES[scale].join(', ')}.`,
      );
    if (!NUMERIC.test(colType.get(c)!))
      throw new BuildError('invalid_input', `${where}: column "${c}" must be numeric (DOUBLE); got ${colType.get(c)}.`);
  }
  const seen = new Map<string, string>();
  const out: FileRow[] = [];
  const batches = await fileBatches(con, files, batchRows);
  let done = 0;
  for (const batch of batches) {
    progress(`indexing the ${scale} files`, `${done + 1}–${done + batch.length} of ${files.length}`);
    done += batch.length;
    out.push(...(await checkBatch(con, stationsDir, prefix, scale, batch, seen)));
  }
  // A type holds values when some file of the scale has a run of it.
  const held = new Set(
    (await rows(con, `SELECT DISTINCT type FROM idx_runs WHERE scale = '${scale}'`)).map((r) => String(r.type)),
  );
  return { types: STATION_TYPES[scale].filter((t) => held.has(t)), files: out };
}

/**
 * Checks one batch of a scale's files (one station each, not seen in an earlier batch, known to
 * stations.parquet, times on the grid and sorted) and adds their runs to `idx_runs`.
 */
async function checkBatch(
  con: DuckDBConnection,
  stationsDir: string,
  prefix: string,
  scale: StationTimeScale,
  files: string[],
  seen: Map<string, string>,
): Promise<FileRow[]> {
  const src = filesSql(files);
  const perFile = await rows(
    con,
    `SELECT filename, count(DISTINCT station_id) AS ids, min(station_id) AS station_id,
      strftime(min(time), '${periodSql(scale).keyFormat}') AS first, strftime(max(time), '${periodSql(scale).keyFormat}') AS last, count(*) AS n
    FROM ${src} GROUP BY filename ORDER BY filename`,
  );
  const out: FileRow[] = [];
  for (const f of perFile) {
    const name = String(f.filename);
    const id = String(f.station_id);
    if (Number(f.ids) !== 1)
      throw new BuildError(
        'invalid_input',
        `${name}: holds ${String(f.ids)} station ids; write one file per station and time scale (e.g. COPY … (PARTITION_BY (station_id))).`,
      );
    if (seen.has(id))
      throw new BuildError(
        'invalid_input',
        `${name}: station "${id}" also has ${seen.get(id)}; write all of a station's ${scale} rows into one file.`,
      );
    seen.set(id, name);
    const bytes = (await stat(name)).size;
    const { footer, hash, chunks } = await footerOf(name, bytes, scale);
    out.push({
      station_id: id,
      path: [prefix, ...relative(stationsDir, name).split(sep)].join('/'),
      bytes,
      footer,
      footerHash: hash,
      ...(chunks ? { chunks } : {}),
      first: String(f.first),
      last: String(f.last),
    });
  }
  const orphan = await rows(
    con,
    `SELECT DISTINCT filename, station_id FROM ${src} WHERE station_id NOT IN (SELECT station_id FROM idx_stations) LIMIT 1`,
  );
  if (orphan.length)
    throw new BuildError(
      'invalid_input',
      `${String(orphan[0]!.filename)}: station_id "${String(orphan[0]!.station_id)}" is not in stations.parquet.`,
    );
  const { offGrid } = periodSql(scale);
  const bad = await rows(
    con,
    `SELECT filename, file_row_number + 1 AS row, CAST(time AS VARCHAR) AS t FROM ${src}
    WHERE time IS NULL OR ${offGrid} OR year(time) NOT BETWEEN ${STATION_YEARS.first} AND ${STATION_YEARS.last} LIMIT 1`,
  );
  if (bad.length) {
    const b = bad[0]!;
    throw new BuildError(
      'invalid_input',
      `${String(b.filename)}: row ${String(b.row)}, column "time": "${String(b.t)}" is empty, off the ${scale} grid (hours on the hour, months on day 1) or outside the years ${STATION_YEARS.first}–${STATION_YEARS.last}.`,
    );
  }
  const unsorted = await rows(
    con,
    `SELECT filename, row, t FROM (SELECT filename, file_row_number + 1 AS row, CAST(time AS VARCHAR) AS t, time,
      lag(time) OVER (PARTITION BY filename ORDER BY file_row_number) AS prev FROM ${src}) WHERE prev >= time ORDER BY filename, row LIMIT 1`,
  );
  if (unsorted.length) {
    const u = unsorted[0]!;
    throw new BuildError(
      'invalid_input',
      `${String(u.filename)}: row ${String(u.row)}, column "time": "${String(u.t)}" is not after the row before it; sort each file by time, with one row per time.`,
    );
  }
  // The batch is decoded once into a table, not once per type; only the types its files have.
  const here = new Set(
    (
      await rows(
        con,
        `DESCRIBE SELECT * FROM read_parquet([${files.map(lit).join(', ')}], union_by_name = true, hive_partitioning = false)`,
      )
    ).map((r) => String(r.column_name)),
  );
  const present = STATION_TYPES[scale].filter((t) => here.has(t));
  await con.run(
    `CREATE OR REPLACE TEMP TABLE idx_data AS SELECT station_id, ${periodSql(scale).ordinal} AS o${present.map((t) => `, ${ident(t)}`).join('')} FROM ${src}`,
  );
  for (const t of present) {
    // Gaps and islands: consecutive periods share (ordinal − row number).
    await con.run(`INSERT INTO idx_runs SELECT '${scale}', station_id, ${lit(t)}, min(o), max(o)
      FROM (SELECT station_id, o, o - row_number() OVER (PARTITION BY station_id ORDER BY o) AS g FROM idx_data WHERE ${ident(t)} IS NOT NULL AND isfinite(${ident(t)}))
      GROUP BY station_id, g`);
  }
  await con.run(`DROP TABLE idx_data`);
  return out;
}

/**
 * Indexes the archive in `stationsDir` (stations.parquet and
 * `<scale>/**.parquet`): checks it, then writes `index.parquet` and
 * `coverage.jsonl` there (each through a temporary name, so a failed run
 * leaves the previous ones). Paths in the index start with `prefix`
 * (the folder's path relative to the dataset root).
 */
export async function indexStationArchive(
  stationsDir: string,
  prefix = 'stations',
  o: IndexOptions = {},
): Promise<StationsSection> {
  const progress = o.progress ?? quiet;
  const stationsFile = join(stationsDir, 'stations.parquet');
  try {
    await stat(stationsFile);
  } catch {
    throw new BuildError(
      'invalid_input',
      `${stationsFile} is missing; a station archive has stations.parquet (station_id, name, lat, lon, elevation) and one folder per time scale (docs/data.md).`,
    );
  }
  const temp = await workFolder('index');
  const duck = await openBuildDuckDB(temp);
  const { con } = duck;
  const tmpIndex = join(stationsDir, `.index-${process.pid}.parquet`);
  const tmpCoverage = join(stationsDir, `.coverage-${process.pid}.jsonl`);
  try {
    await checkStationsFile(con, stationsFile);
    await con.run(`CREATE TEMP TABLE idx_runs (scale VARCHAR, station_id VARCHAR, type VARCHAR, a BIGINT, b BIGINT)`);
    const dataTypes: StationsSection['dataTypes'] = {};
    // Each file's chunk map, for its coverage line (by scale and station).
    const chunkMaps = new Map<string, StationFileChunks>();
    for (const scale of STATION_TIME_SCALES) {
      const files = await parquetFiles(join(stationsDir, scale));
      await con.run(
        `CREATE TEMP TABLE idx_files_${scale} (station_id VARCHAR, path VARCHAR, bytes BIGINT, footer INTEGER, footer_hash VARCHAR, first VARCHAR, last VARCHAR)`,
      );
      if (!files.length) continue;
      const checked = await checkScale(con, stationsDir, prefix, scale, files, progress, o.batchRows);
      dataTypes[scale] = checked.types;
      const app = await con.createAppender(`idx_files_${scale}`);
      for (const f of checked.files) {
        if (f.chunks) chunkMaps.set(`${scale}\u0000${f.station_id}`, f.chunks);
        app.appendVarchar(f.station_id);
        app.appendVarchar(f.path);
        app.appendBigInt(BigInt(f.bytes));
        app.appendInteger(f.footer);
        app.appendVarchar(f.footerHash);
        app.appendVarchar(f.first);
        app.appendVarchar(f.last);
        app.endRow();
      }
      app.flushSync();
      app.closeSync();
    }
    if (!Object.keys(dataTypes).length)
      throw new BuildError('invalid_input', `${stationsDir} has no ${orFolders()} folder with Parquet files.`);

    progress('writing the station index and coverage');
    // Coverage lines, one per station and scale, streamed in id order; their offsets go back into DuckDB.
    await con.run(`CREATE TEMP TABLE idx_cov (station_id VARCHAR, scale VARCHAR, off BIGINT, len INTEGER)`);
    const offsets = await con.createAppender('idx_cov');
    const out = createWriteStream(tmpCoverage);
    let offset = 0;
    const files = STATION_TIME_SCALES.map(
      (s) => `SELECT station_id, '${s}' AS scale, footer_hash FROM idx_files_${s}`,
    ).join(' UNION ALL ');
    // The lines' order, once (a row per station and scale): by scale, then place, then id.
    await con.run(`CREATE TEMP TABLE idx_order AS SELECT row_number() OVER (ORDER BY f.scale,
        floor(st.lat * ${CELLS_PER_DEGREE}), floor(st.lon * ${CELLS_PER_DEGREE}), f.station_id) AS pos, f.station_id, f.scale, f.footer_hash,
        coalesce(r.n, 0) AS n
      FROM (${files}) f JOIN idx_stations st USING (station_id)
      LEFT JOIN (SELECT station_id, scale, count(*) AS n FROM idx_runs GROUP BY ALL) r USING (station_id, scale)`);
    // The runs come sorted (position, type, start) and each line is joined here, a station at a
    // time: a list() aggregate in DuckDB keeps its lists outside its memory limit, and a network's
    // hourly archive has tens of millions of runs (a gap at every failed or calm report): 2.23 GB
    // RSS in that step for 600 stations × 10 years. The sort goes a batch of positions at a time.
    const lines = (await rows(con, `SELECT pos, station_id, scale, footer_hash, n FROM idx_order ORDER BY pos`)).map(
      (r) => ({
        id: String(r.station_id),
        scale: String(r.scale) as StationTimeScale,
        footer: String(r.footer_hash),
        n: Number(r.n),
      }),
    );
    const batches: Array<[number, number]> = [];
    let first = 1;
    let runsInBatch = 0;
    for (const [k, l] of lines.entries()) {
      const pos = k + 1;
      if (runsInBatch > 0 && runsInBatch + l.n > (o.runsPerBatch ?? RUNS_PER_BATCH)) {
        batches.push([first, pos - 1]);
        first = pos;
        runsInBatch = 0;
      }
      runsInBatch += l.n;
    }
    if (lines.length) batches.push([first, lines.length]);
    // By scale, then place (cells of 1/CELLS_PER_DEGREE°, row by row), then id: the lines one query
    // needs (one scale, the stations near a point or inside a field) are adjacent and read together.
    const write = async (pos: number, byType: Map<string, number[]>) => {
      const l = lines[pos - 1]!;
      // The line names the file it describes (its footer's hash), so a coverage
      // file of another version is refused rather than read against this index.
      const chunks = chunkMaps.get(`${l.scale}\u0000${l.id}`);
      const line = `${JSON.stringify({ id: l.id, scale: l.scale, footer: l.footer, groups: coverageGroups(byType, l.scale), ...(chunks ? { chunks } : {}) })}\n`;
      const length = Buffer.byteLength(line);
      offsets.appendVarchar(l.id);
      offsets.appendVarchar(l.scale);
      offsets.appendBigInt(BigInt(offset));
      offsets.appendInteger(length);
      offsets.endRow();
      offset += length;
      if (!out.write(line)) await once(out, 'drain');
    };
    let next = 1;
    for (const [a, b] of batches) {
      const result = await con.stream(`SELECT o.pos, r.type, CAST(r.a AS DOUBLE) AS a, CAST(r.b AS DOUBLE) AS b
        FROM idx_runs r JOIN idx_order o USING (station_id, scale) WHERE o.pos BETWEEN ${a} AND ${b} ORDER BY o.pos, r.type, r.a`);
      let at = 0;
      let byType = new Map<string, number[]>();
      for await (const chunk of result.yieldRowsJs()) {
        for (const [p, type, start, end] of chunk as Array<[bigint | number, string, number, number]>) {
          const pos = Number(p);
          if (pos !== at) {
            if (at) await write(at, byType);
            // Lines without a run (a file whose values are all missing) in between.
            for (next = at ? at + 1 : next; next < pos; next++) await write(next, new Map());
            at = pos;
            next = pos + 1;
            byType = new Map();
          }
          let ab = byType.get(type);
          if (!ab) byType.set(type, (ab = []));
          ab.push(start, end);
        }
      }
      if (at) await write(at, byType);
      for (; next <= b; next++) await write(next, new Map());
    }
    out.end();
    await once(out, 'finish');
    offsets.flushSync();
    offsets.closeSync();

    const scaleCols = STATION_TIME_SCALES.map(
      (s) =>
        `${s}.path AS ${s}_path, ${s}.bytes AS ${s}_bytes, ${s}.footer AS ${s}_footer, ${s}.footer_hash AS ${s}_footer_hash, ${s}.first AS ${s}_first, ${s}.last AS ${s}_last, c_${s}.off AS ${s}_coverage_offset, c_${s}.len AS ${s}_coverage_length`,
    ).join(',\n');
    const joins = STATION_TIME_SCALES.map(
      (s) =>
        `LEFT JOIN idx_files_${s} ${s} USING (station_id) LEFT JOIN (SELECT * FROM idx_cov WHERE scale = '${s}') c_${s} USING (station_id)`,
    ).join('\n');
    await con.run(`COPY (SELECT st.station_id, st.name, st.lat, st.lon, st.elevation,
        ${scaleCols}
      FROM idx_stations st ${joins} ORDER BY st.station_id)
      TO ${lit(tmpIndex)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 19)`);
    const count = Number((await rows(con, `SELECT count(*) AS n FROM idx_stations`))[0]!.n);
    await placeInto(tmpCoverage, join(stationsDir, 'coverage.jsonl'));
    await placeInto(tmpIndex, join(stationsDir, 'index.parquet'));
    const indexBytes = (await stat(join(stationsDir, 'index.parquet'))).size;
    const coverageBytes = (await stat(join(stationsDir, 'coverage.jsonl'))).size;
    return {
      layout: STATION_LAYOUT,
      index: `${prefix}/index.parquet`,
      indexBytes,
      coverage: `${prefix}/coverage.jsonl`,
      coverageBytes,
      count,
      dataTypes,
    };
  } finally {
    duck.close();
    await rm(tmpIndex, { force: true });
    await rm(tmpCoverage, { force: true });
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * `climate-query index DIR`: indexes `DIR/stations` and records it in `DIR/catalog.json`, with the
 * zone its times are in: `utcOffset` when stated ("+03:00"), else the one the catalog already names,
 * else the contract's SAST.
 */
export async function indexStations(
  datasetDir: string,
  name = 'dataset',
  utcOffset?: string,
  progress: BuildProgress = quiet,
): Promise<StationsSection> {
  return withDatasetLock(datasetDir, 'index', () => indexLocked(datasetDir, name, utcOffset, progress));
}

async function indexLocked(
  datasetDir: string,
  name: string,
  utcOffset: string | undefined,
  progress: BuildProgress,
): Promise<StationsSection> {
  const before = await readCatalogOrEmpty(datasetDir, name);
  if (before.stations) {
    // An archive the catalog lists is read by someone: re-indexed as a new archive, switched to whole.
    const { republishArchive } = await import('./dataset/station-archive-publish.ts');
    return republishArchive(
      datasetDir,
      name,
      stationArchiveFolder(before.stations),
      utcOffset ?? before.stations.utcOffset ?? DEFAULT_UTC_OFFSET,
      async () => undefined,
      progress,
    );
  }
  // An archive no catalog lists yet (written by hand into `stations/`): no reader uses its index.
  const folder = 'stations';
  const indexed = await indexStationArchive(join(datasetDir, folder), folder, { progress });
  let section = indexed;
  await updateCatalog(datasetDir, name, (c) => {
    section = { ...indexed, utcOffset: utcOffset ?? c.stations?.utcOffset ?? DEFAULT_UTC_OFFSET };
    c.stations = section;
  });
  return section;
}
